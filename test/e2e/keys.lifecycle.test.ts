/**
 * A key's life as a customer sees it through the whole stack: revoked or rotated in billing, and
 * refused by every running gateway within a second (the revocation event reaches the key cache).
 * What the gateway answers for a missing, malformed, unknown or revoked key is tested at the
 * gateway (services/gateway/test/gateway.error.test.ts).
 */
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balanceOf, getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack.stop());

describe("revocation", () => {
  it("refuses a revoked key with 401 within one second on a running gateway, on every endpoint", async () => {
    const victim = await stack.createKey({ credits: 10 });
    expect((await getJson(`${stack.gatewayUrl}/v1/account`, withKey(victim.key))).status).toBe(200);
    const mcpBefore = await fetch(`${stack.gatewayUrl}/mcp`, {
      method: "DELETE",
      headers: withKey(victim.key),
    });
    expect(mcpBefore.status).not.toBe(401);
    await stack.revokeKey(victim.id);
    // The gateway's key cache learns of it from the revocation event; one second is the promise.
    await waitFor(
      async () =>
        (await fetch(`${stack.gatewayUrl}/mcp`, { method: "DELETE", headers: withKey(victim.key) }))
          .status === 401,
      "the /mcp gate to refuse the key",
      1_000,
    );
    expect((await getJson(`${stack.gatewayUrl}/v1/account`, withKey(victim.key))).status).toBe(401);
    // Data and account requests are refused by billing itself (the debit checks the revoked flag).
    expect((await getJson(`${stack.gatewayUrl}/v1/users/someone`, withKey(victim.key))).status).toBe(401);
  });
});

describe("rotation", () => {
  it("refuses the old secret with 401 within one second while the new one spends the same balance", async () => {
    const rotating = await stack.createKey({ credits: 10 });
    expect((await getJson(`${stack.gatewayUrl}/v1/users/someone`, withKey(rotating.key))).status).toBe(200);
    const fresh = await stack.rotateKey(rotating.id);
    await waitFor(
      async () => (await getJson(`${stack.gatewayUrl}/v1/account`, withKey(rotating.key))).status === 401,
      "the old secret to be refused",
      1_000,
    );
    expect((await getJson(`${stack.gatewayUrl}/v1/users/someone`, withKey(rotating.key))).status).toBe(401);
    expect(await balanceOf(stack.gatewayUrl, fresh)).toBe(9);
    expect((await getJson(`${stack.gatewayUrl}/v1/users/someone`, withKey(fresh))).status).toBe(200);
    expect(await balanceOf(stack.gatewayUrl, fresh)).toBe(8);
  });
});
