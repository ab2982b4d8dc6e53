/** Small HTTP helpers for the black-box tests. */
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

/** Every non-200 is `{error: string}` JSON (docs/api.md#errors). */
export function expectErrorBody(body: Record<string, unknown>): void {
  expect(Object.keys(body)).toEqual(["error"]);
  expect(typeof body.error).toBe("string");
}

export async function balanceOf(gatewayUrl: string, key: string): Promise<number> {
  const { status, body } = await getJson(`${gatewayUrl}/v1/account`, withKey(key));
  if (status !== 200) throw new Error(`account answered ${status}`);
  return (body.data as { credits_balance: number }).credits_balance;
}
