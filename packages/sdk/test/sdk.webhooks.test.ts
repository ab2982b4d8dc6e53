/**
 * The SDK's `verifyWebhook` against what the service really sends: messages signed and POSTed by
 * @rda/webhooks (the monitors' delivery path) to a local receiver, verified with one secret, with
 * either secret during a rotation, and refused when the body was changed or the secret is wrong.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverWebhook, newWebhookSecret } from "../../webhooks/src/index.ts";
import { verifyWebhook, WebhookVerificationError } from "../src/index.ts";

const received: { headers: IncomingHttpHeaders; body: string }[] = [];
let url = "";
const server = createServer((request, response) => {
  let body = "";
  request.on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    received.push({ headers: request.headers, body });
    response.writeHead(204).end();
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

async function send(secret: string | string[]) {
  const data = { monitor_id: "mon_abc", delivery_id: "msg_mon_abc_1", items: [{ id: "p1" }] };
  const result = await deliverWebhook(
    { url, secret },
    { id: "msg_mon_abc_1", type: "monitor.items", data },
    { allowLoopback: true, attempts: 1 },
  );
  expect(result.outcome).toBe("delivered");
  return received.at(-1)!;
}

describe("verifyWebhook", () => {
  it("returns the event of a message signed with the secret", async () => {
    const secret = newWebhookSecret();
    const request = await send(secret);
    const event = verifyWebhook(request.body, request.headers as Record<string, string>, secret);
    expect(event).toMatchObject({ type: "monitor.items", data: { delivery_id: "msg_mon_abc_1" } });
    expect(request.headers["webhook-id"]).toBe(event.data.delivery_id);
  });

  it("verifies with either secret while a rotation sends both signatures", async () => {
    const [fresh, old] = [newWebhookSecret(), newWebhookSecret()];
    const request = await send([fresh, old]);
    const headers = new Headers(request.headers as Record<string, string>);
    expect(verifyWebhook(request.body, headers, fresh).type).toBe("monitor.items");
    expect(verifyWebhook(Buffer.from(request.body), headers, old).type).toBe("monitor.items");
  });

  it("throws WebhookVerificationError for a changed body or another secret", async () => {
    const secret = newWebhookSecret();
    const request = await send(secret);
    const headers = request.headers as Record<string, string>;
    expect(() => verifyWebhook(request.body.replace("p1", "p2"), headers, secret)).toThrow(
      WebhookVerificationError,
    );
    expect(() => verifyWebhook(request.body, headers, newWebhookSecret())).toThrow(WebhookVerificationError);
  });
});
