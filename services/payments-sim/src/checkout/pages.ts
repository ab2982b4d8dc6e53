/**
 * The hosted checkout page a buyer is sent to (`session.url`, `/c/pay/:id`), with "Pay" and
 * "Decline", and the receipt page a charge's `receipt_url` names. Plain HTML forms: no script.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Charge, CheckoutSession } from "../objects.ts";
import { PaymentStateError, type PaymentsAccount, type SessionRecord } from "../payments.ts";

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

const money = (cents: number, currency: string) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(cents / 100);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · payments simulator</title>
<style>body{font-family:system-ui,sans-serif;max-width:30rem;margin:3rem auto;padding:0 1rem;color:#1a1f36}
.card{border:1px solid #e3e8ee;border-radius:8px;padding:1.5rem}.amount{font-size:2rem;font-weight:600}
button{font:inherit;padding:.7rem 1.2rem;border-radius:6px;border:1px solid #c1c9d2;background:#fff;cursor:pointer}
button.pay{background:#635bff;color:#fff;border-color:#635bff}.row{display:flex;gap:.8rem;margin-top:1.2rem}
.error{color:#a1001a}.note{color:#697386;font-size:.9rem}</style></head>
<body><p class="note">Payments simulator: no real card is charged.</p>${body}</body></html>`;
}

function checkoutPage(record: SessionRecord): string {
  const { session } = record;
  const amount = money(session.amount_total ?? 0, session.currency ?? "usd");
  if (session.status !== "open")
    return page("Checkout", `<h1>This checkout is ${escapeHtml(String(session.status))}</h1>`);
  const declined = record.declined ? `<p class="error" role="alert">Your card was declined.</p>` : "";
  const back = session.cancel_url ? `<p><a href="${escapeHtml(session.cancel_url)}">← Back</a></p>` : "";
  return page(
    "Checkout",
    `<main class="card"><h1>${escapeHtml(record.productName)}</h1><p class="amount">${amount}</p>${declined}
<form method="post" action="/c/pay/${session.id}"><div class="row">
<button class="pay" type="submit" name="action" value="pay">Pay ${amount}</button>
<button type="submit" name="action" value="decline">Decline</button></div></form>${back}</main>`,
  );
}

function receiptPage(charge: Charge): string {
  const refunded =
    charge.amount_refunded > 0 ? `<p>Refunded: ${money(charge.amount_refunded, charge.currency)}</p>` : "";
  return page(
    "Receipt",
    `<main class="card"><h1>Receipt</h1><p>${escapeHtml(charge.description ?? "")}</p>
<p class="amount">${money(charge.amount, charge.currency)}</p>${refunded}
<p class="note">Paid ${new Date(charge.created * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC · ${charge.id}</p></main>`,
  );
}

/** Where the buyer goes after paying: the merchant's success_url with the session id filled in. */
function afterPayment(session: CheckoutSession): string | undefined {
  return session.success_url?.replaceAll("{CHECKOUT_SESSION_ID}", session.id);
}

export function registerCheckoutPages(app: FastifyInstance, account: PaymentsAccount): void {
  const html = (reply: FastifyReply, status: number, body: string) =>
    reply.code(status).type("text/html; charset=utf-8").send(body);
  app.get<{ Params: { id: string } }>("/c/pay/:id", (request, reply) => {
    const record = account.sessions.get(request.params.id);
    if (!record) return html(reply, 404, page("Not found", "<h1>No such checkout</h1>"));
    return html(reply, 200, checkoutPage(record));
  });
  app.post<{ Params: { id: string }; Body: { action?: string } }>("/c/pay/:id", (request, reply) => {
    try {
      if (request.body?.action === "pay") {
        const session = account.pay(request.params.id);
        const next = afterPayment(session);
        return next ? reply.redirect(next, 303) : html(reply, 200, page("Paid", "<h1>Payment complete</h1>"));
      }
      account.decline(request.params.id);
      return html(reply, 402, checkoutPage(account.findSession(request.params.id)));
    } catch (error) {
      if (!(error instanceof PaymentStateError)) throw error;
      return html(reply, 409, page("Checkout", `<h1>${escapeHtml(error.message)}</h1>`));
    }
  });
  app.get<{ Params: { id: string } }>("/receipts/:id", (request, reply) => {
    const charge = account.charges.get(request.params.id);
    if (!charge) return html(reply, 404, page("Not found", "<h1>No such receipt</h1>"));
    return html(reply, 200, receiptPage(charge));
  });
}
