/**
 * The Idempotency-Key store cannot be filled with credits (docs/api.md#idempotency,
 * docs/operations.md#the-idempotency-store): a key spends all its credits on large idempotent
 * requests and the bytes the store holds for it stay within its quota; the rest are served once and
 * their retries get 409, never a second charge; the records sit in their own key family, apart from
 * the ledger's; the store's size is a metric.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IdempotencyLimits } from "../../services/gateway/src/core/idempotency.ts";
import { createMetrics } from "../../services/gateway/src/index.ts";
import { balanceOf, getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

const QUOTA = 4 * 1_048_576;
const SMALL_MAX_RESPONSE = 64 * 1_024;

let stack: Stack;
let treePath: string;
/** A gateway with a 4 MiB quota per key (and the default 1 MiB response limit). */
let quota: { url: string; metrics: () => Promise<string> };
/** A gateway that stores no response over 64 KiB. */
let small: { url: string; metrics: () => Promise<string> };

async function gatewayWith(limits: Partial<IdempotencyLimits>) {
  const gatewayMetrics = createMetrics();
  const gateway = await stack.startGateway({ idempotencyLimits: limits }, gatewayMetrics);
  return { url: gateway.url, metrics: () => gatewayMetrics.registry.metrics() };
}

beforeAll(async () => {
  stack = await startStack();
  quota = await gatewayWith({ keyQuotaBytes: QUOTA });
  small = await gatewayWith({ maxResponseBytes: SMALL_MAX_RESPONSE });
  const post = stack.simulator.probe.settledPost({ minComments: 300 });
  if (!post) throw new Error("the simulator has no post with 300 comments");
  treePath = `/v1/comments/tree?post_id=t3_${post.id}&limit=500`;
}, 90_000);
afterAll(async () => stack?.stop());

/** Every Redis key of the namespace matching `pattern`. */
async function keysMatching(pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await stack.redis.scan(cursor, "MATCH", pattern, "COUNT", 1_000);
    cursor = next;
    found.push(...batch);
  } while (cursor !== "0");
  return found;
}

describe("the Idempotency-Key store's bounds", () => {
  it("keeps a key that spends 333 credits on large trees within its quota, and charges each once", async () => {
    const { id, key } = await stack.createKey({ credits: 333, qps: 1_000, burst: 1_000 });
    const sent: { idempotencyKey: string; size: number }[] = [];
    for (let i = 0; i < 333; i++) {
      const idempotencyKey = randomUUID();
      // A new Idempotency-Key makes each a new, charged request, stored like any other.
      const answer = await getJson(`${quota.url}${treePath}`, {
        ...withKey(key),
        "idempotency-key": idempotencyKey,
      });
      expect(answer.status).toBe(200);
      sent.push({ idempotencyKey, size: answer.text.length });
    }
    expect(await balanceOf(quota.url, key)).toBe(0);
    const servedBytes = sent.reduce((sum, { size }) => sum + size, 0);
    expect(servedBytes).toBeGreaterThan(10 * QUOTA);

    // What Redis holds for this key: every record's fields, bodies included.
    const records = (await keysMatching(stack.keys.idempotentRequest(id, "*"))).filter(
      (name) => name !== stack.keys.idempotencyKeyBytes(id),
    );
    let held = 0;
    for (const record of records) {
      const fields = await stack.redis.hgetallBuffer(record);
      for (const [name, value] of Object.entries(fields)) held += name.length + value.length;
    }
    expect(records.length).toBe(333);
    expect(held).toBeLessThanOrEqual(QUOTA);

    // A retry of a stored one replays it; a retry of one not kept is refused, and neither charges.
    const replays = await Promise.all(
      sent.map(({ idempotencyKey }) =>
        fetch(`${quota.url}${treePath}`, {
          headers: { ...withKey(key), "idempotency-key": idempotencyKey },
        }).then(async (response) => ({ status: response.status, body: await response.text() })),
      ),
    );
    const replayed = replays.filter((answer) => answer.status === 200);
    const refused = replays.filter((answer) => answer.status === 409);
    expect(replayed.length + refused.length).toBe(333);
    expect(replayed.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(JSON.parse(refused[0]!.body)).toMatchObject({
      error: expect.stringMatching(/was not kept for replay/),
    });
    expect(await balanceOf(quota.url, key)).toBe(0);

    // The ledger's own family holds nothing of the store.
    const ledgerKeys = await keysMatching(`${stack.keys.keyRecord(id)}*`);
    expect(ledgerKeys.filter((name) => /idempotency/.test(name))).toEqual([]);
    expect(ledgerKeys.every((name) => !records.includes(name))).toBe(true);

    const text = await quota.metrics();
    const stored = Number(/^gateway_idempotency_store_bytes (\d+)/m.exec(text)?.[1]);
    expect(stored).toBeGreaterThanOrEqual(held);
    expect(text).toMatch(/^gateway_idempotency_not_kept_total\{reason="key_quota"\} [1-9]/m);
  }, 240_000);

  it("does not store a response over the size limit, and answers its retry with 409 uncharged", async () => {
    const { key } = await stack.createKey({ credits: 5 });
    const headers = { ...withKey(key), "idempotency-key": randomUUID() };
    const first = await getJson(`${small.url}${treePath}`, headers);
    expect(first.text.length).toBeGreaterThan(SMALL_MAX_RESPONSE);
    const retry = await getJson(`${small.url}${treePath}`, headers);
    expect(retry.status).toBe(409);
    expect(retry.body.error).toMatch(/was not kept for replay/);
    expect(await balanceOf(small.url, key)).toBe(4);
    expect(await small.metrics()).toMatch(/^gateway_idempotency_not_kept_total\{reason="too_large"\} [1-9]/m);
  });
});
