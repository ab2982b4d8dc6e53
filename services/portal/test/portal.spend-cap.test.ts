/**
 * A key's monthly spend cap as its owner sets it on the key's page, over HTTP against real billing:
 * saved and shown with the month's spend, removed with an empty field, a bad value answered on the
 * field, and another account's key out of reach.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserlessClient, uniqueClientIp } from "./support/client.ts";
import { type PortalHarness, startPortalHarness } from "./support/harness.ts";

let h: PortalHarness;
beforeAll(async () => {
  h = await startPortalHarness("portal-cap");
});
afterAll(() => h.close());

async function signedInClient(): Promise<BrowserlessClient> {
  const email = `cap-${randomBytes(4).toString("hex")}@example.com`;
  const client = h.client({ ip: uniqueClientIp() });
  await client.signUp(email, h.inbox);
  return client;
}

async function createKey(client: BrowserlessClient): Promise<string> {
  return (await client.createKey("capped")).id;
}

describe("the monthly spend cap on a key's page", () => {
  it("is saved, shown with the month's spend, and removed with an empty field", async () => {
    const client = await signedInClient();
    const id = await createKey(client);
    expect((await client.get(`/keys/${id}`)).body).toMatch(
      /<strong>0<\/strong> credits spent, no monthly cap/,
    );
    const saved = await client.submit(`/keys/${id}`, `/keys/${id}/cap`, { monthly_cap: "1,500" });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(`/keys/${id}?done=cap-set`);
    const page = (await client.get(`/keys/${id}?done=cap-set`)).body;
    expect(page).toContain("The monthly spend cap is saved.");
    expect(page).toMatch(/<strong>0<\/strong> credits spent of a <strong>1,500<\/strong>-credit monthly cap/);
    expect(page).toContain('value="1500"');
    const removed = await client.submit(`/keys/${id}`, `/keys/${id}/cap`, { monthly_cap: "" });
    expect(removed.headers.get("location")).toBe(`/keys/${id}?done=cap-removed`);
    expect((await client.get(`/keys/${id}`)).body).toContain("no monthly cap");
  });

  it("answers a value that is not a whole number in range on the field, changing nothing", async () => {
    const client = await signedInClient();
    const id = await createKey(client);
    for (const monthly_cap of ["0", "-3", "ten", "1.5", "1000000001"]) {
      const answer = await client.submit(`/keys/${id}`, `/keys/${id}/cap`, { monthly_cap });
      expect(answer.status, monthly_cap).toBe(400);
      expect(answer.body).toContain('aria-invalid="true"');
      expect(answer.body).toContain("Give the cap as a whole number of credits from 1 to 1,000,000,000");
    }
    expect((await client.get(`/keys/${id}`)).body).toContain("no monthly cap");
  });

  it("is out of reach for another account: 404, and the owner's key keeps no cap", async () => {
    const owner = await signedInClient();
    const id = await createKey(owner);
    const stranger = await signedInClient();
    const answer = await stranger.submit("/keys", `/keys/${id}/cap`, { monthly_cap: "5" });
    expect(answer.status).toBe(404);
    expect((await owner.get(`/keys/${id}`)).body).toContain("no monthly cap");
  });
});
