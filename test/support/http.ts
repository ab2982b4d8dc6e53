/** Small HTTP helpers for the black-box tests. */
import { ERRORS, type ErrorCode } from "@rda/contracts";
import { expect } from "vitest";

export function withKey(key: string, header: "x-api-key" | "bearer" = "x-api-key"): Record<string, string> {
  return header === "x-api-key" ? { "x-api-key": key } : { authorization: `Bearer ${key}` };
}

export async function getJson(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: JSON.parse(text) as Record<string, unknown>,
  };
}

/**
 * Answers that say "nothing was done or charged, try again" on a busy machine: our upstream budget
 * had no turn in time (429 `global_rate_limited`) or a dependency did not answer in time (503).
 */
export const isTryAgain = (status: number, body: Record<string, unknown>) =>
  status === 503 || (status === 429 && body.code === "global_rate_limited");

/**
 * Asks until the answer is not a try-again (isTryAgain), at most `attempts` times, waiting what
 * `Retry-After` says (1 s when absent), as a careful client does. `ask` returns status and body.
 */
export async function askUntilServed<
  T extends { status: number; body: Record<string, unknown>; headers?: Headers },
>(ask: () => Promise<T>, attempts = 6): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const answer = await ask();
    if (attempt >= attempts || !isTryAgain(answer.status, answer.body)) return answer;
    const seconds = Number(answer.headers?.get("retry-after") ?? "1");
    await new Promise((resolve) => setTimeout(resolve, Math.min(10, Math.max(1, seconds)) * 1_000));
  }
}

/**
 * Every non-200 is `{error, code}` JSON, plus `param` when one parameter is at fault
 * (docs/api.md#errors); the code is the catalog's, of the answer's status when it is given.
 */
export function expectErrorBody(body: Record<string, unknown>, status?: number): void {
  const keys = Object.keys(body).filter((key) => key !== "param");
  expect(keys).toEqual(["error", "code"]);
  expect(typeof body.error).toBe("string");
  expect(Object.keys(ERRORS)).toContain(body.code);
  if (status !== undefined) expect(ERRORS[body.code as ErrorCode].status).toBe(status);
  if ("param" in body) expect(typeof body.param).toBe("string");
}

export async function balanceOf(gatewayUrl: string, key: string): Promise<number> {
  const { status, body } = await getJson(`${gatewayUrl}/v1/account`, withKey(key));
  if (status !== 200) throw new Error(`account answered ${status}`);
  return (body.data as { credits_balance: number }).credits_balance;
}
