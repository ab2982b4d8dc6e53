/**
 * The portal's promises to a careful user and against a stranger, checked over HTTP on real Redis,
 * NATS, billing and SMTP: one-time links, CSRF on every form, nobody else's keys, no telling which
 * addresses have accounts, and bounded mail.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserlessClient, csrfTokenOf, linkIn, uniqueClientIp } from "./support/client.ts";
import { type PortalHarness, startPortalHarness } from "./support/harness.ts";

const PER_ADDRESS = 3;
const PER_ADDRESS_ALL_CLIENTS = 6;
const PER_CLIENT = 5;

let h: PortalHarness;
beforeAll(async () => {
  h = await startPortalHarness("portal-sec", {
    mailLimits: {
      perAddress: PER_ADDRESS,
      perAddressAllClients: PER_ADDRESS_ALL_CLIENTS,
      perClient: PER_CLIENT,
    },
  });
});
afterAll(() => h.close());

const newAddress = (name = "dev") => `${name}-${randomBytes(4).toString("hex")}@example.com`;
/** Every test its own client address, so the per-client mail limit of one test spares the others. */
const newIp = uniqueClientIp;

async function requestLink(client: BrowserlessClient, email: string, path: "/signup" | "/login" = "/signup") {
  return client.submit(path, path, { email });
}

/** Signs `email` up and in through the inbox, as a person would; returns the signed-in client. */
async function signedInClient(email = newAddress()): Promise<BrowserlessClient> {
  const client = h.client({ ip: newIp() });
  const before = (await h.inbox.messagesTo(email)).length;
  expect((await requestLink(client, email)).status).toBe(200);
  const [mail] = (await h.inbox.waitForMessages(email, before + 1)).slice(-1);
  const confirm = await client.get(linkIn(mail!.text));
  const signedIn = await client.post("/auth", {
    _csrf: csrfTokenOf(confirm.body),
    token: tokenOf(mail!.text),
  });
  expect(signedIn.status).toBe(303);
  return client;
}

const tokenOf = (text: string) => new URL(linkIn(text)).searchParams.get("token")!;

async function createKey(client: BrowserlessClient, label: string): Promise<string> {
  const created = await client.submit("/keys", "/keys", { label });
  expect(created.status).toBe(303);
  const id = /key_[0-9a-z]{16}/.exec(created.location ?? "")?.[0];
  if (!id) throw new Error("no key id on the new key's page");
  return id;
}

describe("sign-in links", () => {
  it("refuses a link used a second time, and the replay signs nobody in", async () => {
    const email = newAddress();
    const first = h.client({ ip: newIp() });
    await requestLink(first, email);
    const [mail] = await h.inbox.waitForMessages(email);
    const token = tokenOf(mail!.text);
    const page = await first.get(`/auth?token=${token}`);
    expect((await first.post("/auth", { _csrf: csrfTokenOf(page.body), token })).status).toBe(303);

    const replay = h.client({ ip: newIp() });
    const replayPage = await replay.get(`/auth?token=${token}`);
    expect(replayPage.status).toBe(410);
    expect(replayPage.body).toContain("already used");
    const forced = await replay.post("/auth", { _csrf: csrfTokenOf(replayPage.body), token });
    expect(forced.status).toBe(410);
    expect(forced.headers.getSetCookie().some((cookie) => cookie.startsWith("rda_session="))).toBe(false);
    expect((await replay.get("/keys")).location).toMatch(/^\/login/);
  });

  it("refuses a link older than 15 minutes, though it was never used", async () => {
    const email = newAddress();
    const client = h.client({ ip: newIp() });
    await requestLink(client, email);
    const [mail] = await h.inbox.waitForMessages(email);
    const token = tokenOf(mail!.text);
    const page = await client.get(`/auth?token=${token}`);
    expect(page.status).toBe(200);
    h.advanceClock(15 * 60_000 + 1_000);
    try {
      const used = await client.post("/auth", { _csrf: csrfTokenOf(page.body), token });
      expect(used.status).toBe(410);
      expect(used.body).toContain("expired");
      expect((await client.get("/keys")).location).toMatch(/^\/login/);
    } finally {
      h.advanceClock(-(15 * 60_000 + 1_000));
    }
  });

  it("keeps only hashes of link tokens and session ids in Redis", async () => {
    const email = newAddress();
    const client = h.client({ ip: newIp() });
    await requestLink(client, email);
    const [mail] = await h.inbox.waitForMessages(email);
    const token = tokenOf(mail!.text);
    const keys = await h.redis.keys(`${h.namespace}:*`);
    expect(keys.some((key) => key.includes(token))).toBe(false);
    for (const key of keys.filter((name) => /:portal:(login-link|session):/.test(name))) {
      expect(await h.redis.get(key)).not.toContain(token);
    }
  });
});

describe("CSRF", () => {
  it("refuses every form posted without its token, and changes nothing", async () => {
    const client = await signedInClient();
    const id = await createKey(client, "kept");
    const forms: [string, Record<string, string>][] = [
      ["/signup", { email: newAddress() }],
      ["/login", { email: newAddress() }],
      ["/keys", { label: "forged" }],
      [`/keys/${id}/rotate`, {}],
      [`/keys/${id}/revoke`, {}],
      ["/logout", {}],
      ["/logout-everywhere", {}],
    ];
    for (const [path, form] of forms) {
      const refused = await client.post(path, form);
      expect(refused.status, path).toBe(403);
      expect(refused.body).toContain("This form has expired");
    }
    const keys = await client.get("/keys");
    expect(keys.status).toBe(200);
    expect(keys.body).not.toContain("forged");
    expect(keys.body).toContain("Active");
  });

  it("refuses a token from another browser's cookie", async () => {
    const client = await signedInClient();
    const stranger = h.client({ ip: newIp() });
    const strangersToken = csrfTokenOf((await stranger.get("/login")).body);
    expect((await client.post("/keys", { _csrf: strangersToken, label: "forged" })).status).toBe(403);
  });
});

describe("another account's keys", () => {
  it("answers 404 for another account's key id on every key URL, and leaves the key alone", async () => {
    const owner = await signedInClient();
    const id = await createKey(owner, "mine");
    const other = await signedInClient();
    const csrf = csrfTokenOf((await other.get("/keys")).body);
    expect((await other.get(`/keys/${id}`)).status).toBe(404);
    expect((await other.get(`/keys/${id}/usage`)).status).toBe(404);
    const json = await other.get(`/keys/${id}/usage.json`);
    expect(json.status).toBe(404);
    expect(JSON.parse(json.body)).toEqual({ error: expect.any(String) });
    expect((await other.post(`/keys/${id}/rotate`, { _csrf: csrf })).status).toBe(404);
    expect((await other.post(`/keys/${id}/revoke`, { _csrf: csrf })).status).toBe(404);
    const mine = await owner.get(`/keys/${id}`);
    expect(mine.status).toBe(200);
    expect(mine.body).toContain("Active");
  });

  it("answers 404 for a malformed key id", async () => {
    const client = await signedInClient();
    expect((await client.get("/keys/key_..%2f..%2fetc")).status).toBe(404);
    expect((await client.get(`/keys/${"x".repeat(300)}`)).status).toBe(404);
  });
});

describe("signing up", () => {
  it("gives the same answer for an address with an account and one without", async () => {
    const known = newAddress("known");
    await signedInClient(known);
    const unknown = newAddress("unknown");
    const client = h.client({ ip: newIp() });
    const answers = [await requestLink(client, known), await requestLink(client, unknown)];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const [forKnown, forUnknown] = answers.map((answer, index) =>
      answer.body.replaceAll(index === 0 ? known : unknown, "ADDRESS"),
    );
    expect(forKnown).toBe(forUnknown);
    expect(answers[0]!.headers.get("content-type")).toBe(answers[1]!.headers.get("content-type"));
    // The same work behind both answers: exactly one email each (the wording differs only in it).
    expect(await h.inbox.waitForMessages(known, 2)).toHaveLength(2);
    expect(await h.inbox.waitForMessages(unknown, 1)).toHaveLength(1);
  });

  it("makes one account per address, whatever its letter case", async () => {
    const email = newAddress();
    const first = await signedInClient(email);
    const second = await signedInClient(email.toUpperCase());
    const idOf = async (client: BrowserlessClient) =>
      /acct_[0-9a-z]{16}/.exec((await client.get("/account")).body)?.[0];
    expect(await idOf(second)).toBe(await idOf(first));
  });

  it("answers a malformed address with the form and a message naming the field, sending nothing", async () => {
    const client = h.client({ ip: newIp() });
    const answer = await requestLink(client, "not-an-address");
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('aria-invalid="true"');
    expect(answer.body).toContain("Enter your email address");
  });
});

describe("mail rate limits", () => {
  it(`sends at most ${PER_ADDRESS} links an hour to one address from one client, then says to wait`, async () => {
    const email = newAddress();
    const client = h.client({ ip: newIp() });
    for (let i = 0; i < PER_ADDRESS; i++) expect((await requestLink(client, email)).status).toBe(200);
    const refused = await requestLink(client, email);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.body).toContain("Too many emails to this address");
    await h.inbox.waitForMessages(email, PER_ADDRESS);
    expect(await h.inbox.messagesTo(email)).toHaveLength(PER_ADDRESS);
  });

  it("does not let five requests for an address from another client stop its owner from signing in", async () => {
    const email = newAddress();
    const stranger = h.client({ ip: newIp() });
    for (let i = 0; i < 5; i++) await requestLink(stranger, email, "/login");
    const owner = h.client({ ip: newIp() });
    expect((await requestLink(owner, email, "/login")).status).toBe(200);
    const mails = await h.inbox.waitForMessages(email, PER_ADDRESS + 1);
    const confirm = await owner.get(linkIn(mails.at(-1)!.text));
    const used = await owner.post("/auth", {
      _csrf: csrfTokenOf(confirm.body),
      token: tokenOf(mails.at(-1)!.text),
    });
    expect(used.status).toBe(303);
    expect((await owner.get("/keys")).status).toBe(200);
  });

  it(`sends at most ${PER_ADDRESS_ALL_CLIENTS} links an hour to one address from all clients, except to a browser that signed in to it before`, async () => {
    const email = newAddress();
    // The owner signed in from this browser last week: it holds the address's device cookie.
    const owner = await signedInClient(email);
    expect(
      (await owner.post("/logout", { _csrf: csrfTokenOf((await owner.get("/keys")).body) })).status,
    ).toBe(303);
    const sentBefore = (await h.inbox.messagesTo(email)).length;
    // Strangers on many networks use up the address-wide allowance (the owner's first link, asked
    // before the browser was known, took one place of it).
    const statuses = [];
    for (let i = 0; i < PER_ADDRESS_ALL_CLIENTS; i++) {
      statuses.push((await requestLink(h.client({ ip: newIp() }), email, "/login")).status);
    }
    expect(statuses).toEqual([...Array(PER_ADDRESS_ALL_CLIENTS - 1).fill(200), 429]);
    // A new browser is refused now; the owner's own browser still gets its link and signs in.
    expect((await requestLink(h.client({ ip: newIp() }), email, "/login")).status).toBe(429);
    expect((await requestLink(owner, email, "/login")).status).toBe(200);
    const mails = await h.inbox.waitForMessages(email, sentBefore + PER_ADDRESS_ALL_CLIENTS);
    const confirm = await owner.get(linkIn(mails.at(-1)!.text));
    const used = await owner.post("/auth", {
      _csrf: csrfTokenOf(confirm.body),
      token: tokenOf(mails.at(-1)!.text),
    });
    expect(used.status).toBe(303);
  });

  it("counts a browser whose device cookie is of another address as a stranger", async () => {
    const owner = await signedInClient();
    const device = owner.cookies.get("rda_device")!;
    expect(device).toMatch(/^[\w-]{43}$/);
    const other = newAddress();
    const copied = h.client({ ip: newIp() });
    copied.cookies.set("rda_device", device);
    for (let i = 0; i < PER_ADDRESS; i++)
      expect((await requestLink(copied, other, "/login")).status).toBe(200);
    expect((await requestLink(copied, other, "/login")).status).toBe(429);
  });

  it(`sends at most ${PER_CLIENT} links an hour for one client address, whatever the addresses`, async () => {
    const client = h.client({ ip: newIp() });
    const addresses = Array.from({ length: PER_CLIENT + 1 }, () => newAddress());
    const statuses = [];
    for (const email of addresses) statuses.push((await requestLink(client, email)).status);
    expect(statuses).toEqual([...Array(PER_CLIENT).fill(200), 429]);
    expect(await h.inbox.messagesTo(addresses.at(-1)!)).toHaveLength(0);
    // Another client is not held back by this one.
    expect((await requestLink(h.client({ ip: newIp() }), newAddress())).status).toBe(200);
  });
});

describe("sessions", () => {
  it("sets the session cookie HttpOnly and SameSite=Lax, never logs it, and ends it on log out", async () => {
    const email = newAddress();
    const client = h.client({ ip: newIp() });
    await requestLink(client, email);
    const [mail] = await h.inbox.waitForMessages(email);
    const page = await client.get(linkIn(mail!.text));
    const used = await client.post("/auth", { _csrf: csrfTokenOf(page.body), token: tokenOf(mail!.text) });
    const cookie = used.headers.getSetCookie().find((line) => line.startsWith("rda_session="))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const stolen = client.cookies.get("rda_session")!;
    expect(h.logLines()).not.toContain(stolen);
    expect(h.logLines()).not.toContain(tokenOf(mail!.text));
    await client.submit("/account", "/logout", {});
    expect((await client.get("/keys")).location).toMatch(/^\/login/);
    const thief = h.client({ ip: newIp() });
    thief.cookies.set("rda_session", stolen);
    expect((await thief.get("/keys")).location).toMatch(/^\/login/);
  });

  it("logs out every session of the account on 'log out everywhere'", async () => {
    const email = newAddress();
    const laptop = await signedInClient(email);
    const phone = await signedInClient(email);
    expect((await phone.get("/keys")).status).toBe(200);
    const answer = await laptop.submit("/account", "/logout-everywhere", {});
    expect(answer.location).toBe("/login?done=logged-out-everywhere");
    expect((await phone.get("/keys")).location).toMatch(/^\/login/);
    expect((await laptop.get("/keys")).location).toMatch(/^\/login/);
  });
});
