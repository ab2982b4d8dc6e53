/**
 * Money moves one way (docs/architecture.md#a-debits-life): one debit script in the ledger
 * (`admitScript`, which requests and work debits alike run), and one settle-and-refund path for
 * every caller (service-kit `debit-ends.ts`: now, else retried or queued in the refund stream, else
 * the deadline). A second script that journals a debit, or a caller that settles, refunds or
 * publishes a refund on its own, would repeat the rules and lose what they guarantee.
 */
import { describe, expect, it } from "vitest";
import { linesOutsideHome } from "./production-lines.ts";

const RULES = [
  {
    what: "a script that journals a debit",
    home: ["services/billing/src/ledger/admission-scripts.ts"],
    patterns: [/journal\(\s*'debit'/],
  },
  {
    what: "a settle or refund asked of billing, or a refund published",
    home: ["packages/service-kit/src/debit-ends.ts", "packages/service-kit/src/jetstream.ts"],
    patterns: [/publishRefund\s*\(/, /\b(call|timed)\(\s*["'](settle|refund)["']/],
  },
] as const;

function outsideHome(rule: (typeof RULES)[number]): string[] {
  return linesOutsideHome(rule.home, rule.patterns);
}

describe("money moves one way", () => {
  it.each(RULES)("$what lives only in its one home", (rule) => {
    expect(outsideHome(rule)).toEqual([]);
  });

  it("would notice a second debit script or a caller of its own", () => {
    const lines = [
      "journal('debit', -1, balance, ARGV[1], ARGV[2])",
      "await publishRefund(nats, subjects, message)",
      'const reply = await billing.call("refund", message);',
      'timed("settle", { debits })',
    ];
    for (const line of lines)
      expect(
        RULES.some((rule) => rule.patterns.some((pattern) => pattern.test(line))),
        line,
      ).toBe(true);
    expect(RULES.some((rule) => rule.patterns.some((p) => p.test("journal('refund', 1, b, id, at)")))).toBe(
      false,
    );
  });
});
