/**
 * One-click unsubscribe (RFC 8058), without signing in. `GET /unsubscribe?account&kind&token` (the
 * link in a notice email) shows what it would switch off and one button, so a mail scanner that
 * opens links switches nothing off; `POST` to the same address (that button, or a mail program's
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click`) switches the kind off. A token changed or
 * revoked is refused with a page that says so. Receipts and payment problems have no such link.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { PortalContext } from "../context.ts";
import { renderPage } from "../http/render.ts";
import { NOTICE_KINDS } from "../notices/notice-kinds.ts";

export function registerUnsubscribe(app: FastifyInstance, ctx: PortalContext): void {
  const links = ctx.notices.unsubscribe;
  if (!links) return;
  // Mail programs may post the one-click body as multipart; only the address matters.
  app.addContentTypeParser("multipart/form-data", (_request, _payload, done) => done(null, {}));
  const checked = async (request: FastifyRequest, reply: FastifyReply) => {
    const found = await links.check(request.query as Record<string, unknown>);
    if (!found) {
      await renderPage(
        ctx,
        reply,
        "unsubscribe",
        {
          title: "This unsubscribe link does not work",
          invalid: true,
          settingsUrl: "/notifications",
        },
        400,
      );
      return undefined;
    }
    return found;
  };
  app.get("/unsubscribe", async (request, reply) => {
    const found = await checked(request, reply);
    if (!found) return reply;
    return renderPage(ctx, reply, "unsubscribe", {
      title: "Stop these notices",
      label: NOTICE_KINDS[found.kind].label,
      action: request.url,
    });
  });
  app.post("/unsubscribe", async (request, reply) => {
    const found = await checked(request, reply);
    if (!found) return reply;
    await ctx.notices.settings.switchOff(found.accountId, found.kind);
    request.log.info({ account_id: found.accountId, kind: found.kind }, "notices switched off by link");
    return renderPage(ctx, reply, "unsubscribe", {
      title: "Notices switched off",
      label: NOTICE_KINDS[found.kind].label,
      done: true,
      settingsUrl: "/notifications",
    });
  });
}
