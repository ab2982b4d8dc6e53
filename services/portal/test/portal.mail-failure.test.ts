/** When the mail server refuses or is down, the person is told plainly, and no secret reaches the log. */
import { freePort } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PortalHarness, startPortalHarness } from "./support/harness.ts";

let h: PortalHarness;
beforeAll(async () => {
  // A port nobody listens on: every connection is refused at once.
  h = await startPortalHarness("portal-mail", { smtpUrl: `smtp://127.0.0.1:${await freePort()}` });
});
afterAll(() => h.close());

describe("a sign-up while the mail server is unreachable", () => {
  it("answers 503 with Retry-After and a page that says nothing was sent, and logs why without the link", async () => {
    const client = h.client();
    const answer = await client.submit("/signup", "/signup", { email: "someone@example.com" });
    expect(answer.status).toBe(503);
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(answer.body).toContain("We could not send the email");
    expect(answer.body).toContain("Nothing was sent; try again in a minute.");
    const log = h.logLines();
    expect(log).toContain("mail_unavailable");
    expect(log).toContain("ECONNREFUSED");
    expect(log).not.toMatch(/token=|\/auth\?/);
  });
});
