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
