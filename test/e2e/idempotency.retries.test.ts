/**
 * `Idempotency-Key` (docs/api.md#idempotency): a retry of a served request gets the first response
 * again and is charged nothing more; only served, charged responses are replayed; a different
 * request under the same key is refused; concurrent duplicates are never charged twice; replays
 * expire; every gateway replica sees the same keys.
 */
import { randomUUID } from "node:crypto";
import { sha256Hex } from "@rda/service-kit";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balanceOf, getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ upstreamDeadlineMs: 600 });
});
afterAll(async () => stack.stop());

const idempotent = (key: string, idempotencyKey: string) => ({
  ...withKey(key),
  "idempotency-key": idempotencyKey,
});

describe("Idempotency-Key", () => {
  it("replays a served response with its original credit figures and charges it once", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const headers = idempotent(key, randomUUID());
    const first = await getJson(`${stack.gatewayUrl}/v1/posts?subreddit=rust&limit=5`, headers);
    const again = await getJson(`${stack.gatewayUrl}/v1/posts?subreddit=rust&limit=5`, headers);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("x-credits-remaining")).toBe("9");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(again.headers.get("ratelimit")).toMatch(/^"per-key";r=\d+;t=\d+$/);
    expect(await balanceOf(stack.gatewayUrl, key)).toBe(9);
  });

  it("charges 20 concurrent duplicates once: one is served, the others replay it or get 409", async () => {
    const { key } = await stack.createKey({ credits: 50, qps: 100, burst: 100 });
    const headers = idempotent(key, randomUUID());
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => getJson(`${stack.gatewayUrl}/v1/users/someone`, headers)),
    );
    const served = answers.filter((answer) => answer.status === 200);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 409)).toBe(true);
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(new Set(served.map((answer) => answer.text)).size).toBe(1);
    expect(await balanceOf(stack.gatewayUrl, key)).toBe(49);
    const conflict = answers.find((answer) => answer.status === 409);
    if (conflict) expect(conflict.body.error).toMatch(/Idempotency-Key is still being served/);
  });

  it("keeps the response it replays sealed, openable only with the Idempotency-Key and the API key presented", async () => {
    const { key, id } = await stack.createKey({ credits: 10 });
    const idempotencyKey = randomUUID();
    const path = `${stack.gatewayUrl}/v1/users/someone`;
    const first = await getJson(path, idempotent(key, idempotencyKey));
    expect(first.status).toBe(200);
    const kept = await stack.redis.hgetBuffer(
      stack.keys.idempotentRequest(id, sha256Hex(idempotencyKey)),
      "body",
    );
    const data = JSON.stringify((first.body as { data: unknown }).data);
    expect(kept?.length).toBeGreaterThan(0);
    expect(kept?.includes(data.slice(0, 24))).toBe(false);
    expect((await getJson(path, idempotent(key, idempotencyKey))).text).toBe(first.text);
    // The key's secret rotated: the same key id, another secret; the kept answer cannot be opened.
    const rotated = await stack.rotateKey(id);
    const after = await getJson(path, idempotent(rotated, idempotencyKey));
    expect(after.status).toBe(409);
    expect(after.body.code).toBe("idempotency_response_not_kept");
    expect(await balanceOf(stack.gatewayUrl, rotated)).toBe(9);
  });

  it("refuses the same key with a different request with 422, charging nothing", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const headers = idempotent(key, randomUUID());
    expect((await getJson(`${stack.gatewayUrl}/v1/users/someone`, headers)).status).toBe(200);
    const other = await getJson(`${stack.gatewayUrl}/v1/users/someone_else`, headers);
    expect(other.status).toBe(422);
    expect(other.body.error).toMatch(/already used with a different request/);
    expect(await balanceOf(stack.gatewayUrl, key)).toBe(9);
  });

  it("does not replay a refunded 502: the retry is a new attempt", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const headers = idempotent(key, randomUUID());
    await stack.fault({ mode: "error", rate: 1, path: "/api/users/search" });
    try {
      expect((await getJson(`${stack.gatewayUrl}/v1/users/someone`, headers)).status).toBe(502);
    } finally {
      await stack.clearFaults();
    }
    const retry = await getJson(`${stack.gatewayUrl}/v1/users/someone`, headers);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(await balanceOf(stack.gatewayUrl, key)).toBe(9);
  });

  it("is shared by every gateway replica", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const replica = await stack.startGateway();
    const headers = idempotent(key, randomUUID());
    const first = await getJson(`${stack.gatewayUrl}/v1/users/someone`, headers);
    const again = await getJson(`${replica.url}/v1/users/someone`, headers);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    expect(await balanceOf(stack.gatewayUrl, key)).toBe(9);
  });

  it("stops replaying once the stored response expires: the next request is new and charged", async () => {
    const { key, id } = await stack.createKey({ credits: 10 });
    const shortLived = await stack.startGateway({ idempotencyReplaySeconds: 1 });
    const idempotencyKey = randomUUID();
    const headers = idempotent(key, idempotencyKey);
    expect((await getJson(`${shortLived.url}/v1/users/someone`, headers)).status).toBe(200);
    // The stored response, kept for the replay window (1 s here) and then dropped by Redis itself.
    const stored = stack.keys.idempotentRequest(id, sha256Hex(idempotencyKey));
    expect(await stack.redis.exists(stored)).toBe(1);
    await waitFor(async () => (await stack.redis.exists(stored)) === 0, "the stored response's expiry");
    const later = await getJson(`${shortLived.url}/v1/users/someone`, headers);
    expect(later.status).toBe(200);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect(await balanceOf(stack.gatewayUrl, key)).toBe(8);
  });

  it("refuses a malformed Idempotency-Key with 400 before anything is charged", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const answer = await getJson(`${stack.gatewayUrl}/v1/users/someone`, idempotent(key, "x".repeat(256)));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/Idempotency-Key must be given once/);
    expect(await balanceOf(stack.gatewayUrl, key)).toBe(10);
  });
});
