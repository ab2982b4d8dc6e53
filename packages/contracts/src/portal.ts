/**
 * What the developer portal answers to scripts: one key's balance and its usage, by UTC day and by
 * operation (`GET /keys/{id}/usage.json`). The numbers are billing's usage counters as they are.
 */
import { z } from "zod";
import { keyDetailsSchema, usageDaySchema } from "./key-messages.ts";

const countsByOperation = z.record(z.string(), z.number().int());

export const keyUsageReportSchema = z.object({
  key: keyDetailsSchema.pick({
    id: true,
    label: true,
    credits_balance: true,
    revoked: true,
    created_at: true,
    last_used_at: true,
  }),
  /** Every UTC day of the period, oldest first, today last; days without activity are zeros. */
  days: z.array(usageDaySchema),
  /** The period's sums: requests charged and refunded per operation id (`listPosts`), credits added. */
  totals: z.object({
    charged: countsByOperation,
    refunded: countsByOperation,
    credits_bought: z.number().int(),
    credits_granted: z.number().int(),
    paid_cents: z.number().int(),
  }),
});
export type KeyUsageReport = z.infer<typeof keyUsageReportSchema>;
