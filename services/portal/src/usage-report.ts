/**
 * A key's usage as the portal shows it: the JSON report for scripts (contracts' keyUsageReportSchema)
 * and, from it, the rows of the tables and the bars of the chart. Pure functions of billing's
 * per-day counters; no I/O.
 */
import { type KeyDetails, type KeyUsageReport, OPERATIONS, type UsageDay } from "@rda/contracts";

/** The periods a person can pick; the JSON accepts any number of days from 1 to 400. */
export const USAGE_PERIODS = [7, 30, 90] as const;
export const DEFAULT_USAGE_DAYS = 30;

export function usageReport(key: KeyDetails, days: UsageDay[]): KeyUsageReport {
  const totals: KeyUsageReport["totals"] = {
    charged: {},
    refunded: {},
    credits_bought: 0,
    credits_granted: 0,
    paid_cents: 0,
  };
  for (const day of days) {
    addCounts(totals.charged, day.charged);
    addCounts(totals.refunded, day.refunded);
    totals.credits_bought += day.credits_bought;
    totals.credits_granted += day.credits_granted;
    totals.paid_cents += day.paid_cents;
  }
  const { id, label, credits_balance, revoked, created_at, last_used_at } = key;
  return { key: { id, label, credits_balance, revoked, created_at, last_used_at }, days, totals };
}

function addCounts(into: Record<string, number>, counts: Record<string, number>): void {
  for (const [operation, count] of Object.entries(counts)) into[operation] = (into[operation] ?? 0) + count;
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** `listPosts` → `GET /v1/posts`: what a developer recognises from the API docs. */
export function endpointName(operationId: string): string {
  const operation = (OPERATIONS as Record<string, { path: string } | undefined>)[operationId];
  return operation ? `GET ${operation.path}` : operationId;
}

export interface DayRow {
  readonly date: string;
  readonly charged: number;
  readonly refunded: number;
  readonly creditsBought: number;
  readonly creditsGranted: number;
}

export interface EndpointRow {
  readonly endpoint: string;
  readonly charged: number;
  readonly refunded: number;
}

export interface ChartBar {
  readonly date: string;
  readonly charged: number;
  readonly refunded: number;
  readonly x: number;
  readonly chargedHeight: number;
  readonly refundedHeight: number;
}

export interface UsageView {
  readonly period: number;
  /** Days with any activity, newest first: a table of 90 empty rows helps nobody. */
  readonly dayRows: DayRow[];
  readonly endpointRows: EndpointRow[];
  readonly totals: { charged: number; refunded: number; creditsBought: number; creditsGranted: number };
  /** `max`: the busiest day's charged requests (0 without any). */
  readonly chart: { bars: ChartBar[]; width: number; height: number; barWidth: number; max: number };
}

const CHART_HEIGHT = 120;
const BAR_STEP = 12;

export function usageView(report: KeyUsageReport): UsageView {
  const dayRows = report.days
    .map((day) => ({
      date: day.date,
      charged: sum(day.charged),
      refunded: sum(day.refunded),
      creditsBought: day.credits_bought,
      creditsGranted: day.credits_granted,
    }))
    .filter((row) => row.charged + row.refunded + row.creditsBought + row.creditsGranted > 0)
    .reverse();
  const operations = new Set([...Object.keys(report.totals.charged), ...Object.keys(report.totals.refunded)]);
  const endpointRows = [...operations]
    .map((operation) => ({
      endpoint: endpointName(operation),
      charged: report.totals.charged[operation] ?? 0,
      refunded: report.totals.refunded[operation] ?? 0,
    }))
    .sort((a, b) => b.charged - a.charged || a.endpoint.localeCompare(b.endpoint));
  return {
    period: report.days.length,
    dayRows,
    endpointRows,
    totals: {
      charged: sum(report.totals.charged),
      refunded: sum(report.totals.refunded),
      creditsBought: report.totals.credits_bought,
      creditsGranted: report.totals.credits_granted,
    },
    chart: chartOf(report.days),
  };
}

function chartOf(days: UsageDay[]) {
  const max = Math.max(0, ...days.map((day) => sum(day.charged)));
  const scale = (count: number) =>
    count === 0 ? 0 : Math.max(2, Math.round((count / Math.max(1, max)) * CHART_HEIGHT));
  const bars = days.map((day, index) => {
    const charged = sum(day.charged);
    const refunded = sum(day.refunded);
    return {
      date: day.date,
      charged,
      refunded,
      x: index * BAR_STEP,
      chargedHeight: scale(charged),
      refundedHeight: Math.min(scale(charged), scale(refunded)),
    };
  });
  return { bars, width: days.length * BAR_STEP, height: CHART_HEIGHT, barWidth: BAR_STEP - 3, max };
}
