/**
 * The error table in docs/api.md#errors is the catalog (packages/contracts/src/errors.ts) written
 * for people, kept honest as fastify keeps its error docs: every catalog code is in the table once,
 * the table names no code the catalog lacks, and each row's status and credit column say what the
 * catalog says.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ERRORS, type ErrorCode } from "@rda/contracts";
import { describe, expect, it } from "vitest";

const API_DOC = join(import.meta.dirname, "..", "..", "docs", "api.md");

interface DocumentedError {
  readonly code: string;
  readonly status: number;
  readonly credit: string;
}

/** The rows of the first table under `## Errors`, one entry per code a row names. */
function documentedErrors(markdown: string): DocumentedError[] {
  const section = markdown.split(/^## Errors$/m)[1]?.split(/^## /m)[0] ?? "";
  const rows = section.split("\n").filter((line) => /^\|\s*\d{3}\s*\|/.test(line));
  return rows.flatMap((row) => {
    const [status, codes, , credit] = row
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim());
    return [...(codes ?? "").matchAll(/`([a-z_]+)`/g)].map((match) => ({
      code: match[1]!,
      status: Number(status),
      credit: credit ?? "",
    }));
  });
}

/** What the credit column must say for an entry: refunded ones give a taken credit back. */
const creditColumnSays = (refunded: boolean) => (refunded ? /^refunded/ : /^not charged$/);

describe("the error table in docs/api.md", () => {
  const documented = documentedErrors(readFileSync(API_DOC, "utf8"));

  it("names every catalog code exactly once, and no code the catalog lacks", () => {
    expect(documented.map((row) => row.code).sort()).toEqual(Object.keys(ERRORS).sort());
  });

  it("gives each code the catalog's status and says whether its credit is refunded", () => {
    for (const { code, status, credit } of documented) {
      const entry = ERRORS[code as ErrorCode];
      expect(status, code).toBe(entry.status);
      expect(credit, code).toMatch(creditColumnSays(entry.refunded));
    }
  });

  it("would notice a missing code, an unknown one and a wrong status", () => {
    const table = [
      "## Errors",
      "| status | code | when | credit |",
      "| --- | --- | --- | --- |",
      "| 401 | `missing_api_key`, `no_such_code` | x | not charged |",
      "| 503 | `rate_limited` | x | not charged |",
    ].join("\n");
    const rows = documentedErrors(table);
    expect(rows.map((row) => row.code)).toEqual(["missing_api_key", "no_such_code", "rate_limited"]);
    expect(rows.map((row) => row.code).sort()).not.toEqual(Object.keys(ERRORS).sort());
    expect(rows[2]!.status).not.toBe(ERRORS.rate_limited.status);
  });
});
