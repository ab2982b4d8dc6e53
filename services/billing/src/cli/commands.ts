/**
 * What each `pnpm admin` command asks billing and how the answer maps to output and an exit code.
 * Amounts are parsed here from text into integer cents; the ladder itself lives in billing.
 */
import { randomUUID } from "node:crypto";
import type { BillingRpcName, BillingRpcRequest, Subjects } from "@rda/contracts";
import { billingCaller, type NatsConnection } from "@rda/service-kit";
import type { Command } from "./args.ts";
import { type CommandResult, EXIT } from "./exit-codes.ts";
import { failureResult } from "./failure-result.ts";
import { describeKey, describeKeyList, describeMonthSpend, describeUsage, describeVerify } from "./output.ts";

export interface CliDeps {
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
}

type Runnable = Exclude<Command, { name: "help" }>;
type TopUp = Extract<Command, { name: "keys topup" }>;

const ASK_TIMEOUT_MS = 10_000;

function ask<N extends BillingRpcName>(
  deps: CliDeps,
  name: N,
  request: BillingRpcRequest<N>,
  timeoutMs = ASK_TIMEOUT_MS,
) {
  return billingCaller(deps.nats, deps.subjects, timeoutMs).call(name, request);
}
const notFound = (id: string): CommandResult => ({
  exitCode: EXIT.notFound,
  error: `no key with id '${id}'`,
});

export function runCommand(deps: CliDeps, command: Runnable): Promise<CommandResult> {
  switch (command.name) {
    case "keys create":
      return createKey(deps, command);
    case "keys show":
      return showKey(deps, command.id);
    case "keys list":
      return listKeys(deps, command);
    case "keys usage":
      return keyUsage(deps, command.id, command.days);
    case "keys revoke":
      return revokeKey(deps, command.id);
    case "keys rotate":
      return rotateKey(deps, command.id);
    case "keys topup":
      return topUpKey(deps, command);
    case "keys cap":
      return capKey(deps, command.id, command.monthlyCap);
    case "ledger verify":
      return verifyLedger(deps);
  }
}

async function createKey(deps: CliDeps, command: Extract<Command, { name: "keys create" }>) {
  const request = {
    credits: command.credits,
    rate_limit: { qps: command.qps, burst: command.burst },
    label: command.label,
  };
  const answer = await ask(deps, "createKey", request);
  if (!answer.ok) return failureResult(answer.error);
  if (answer.value.outcome !== "created") {
    return {
      exitCode: EXIT.failure,
      error: `refused: the account's ${answer.value.limit} key limit (${answer.value.max}) is reached`,
    };
  }
  const { id, key, credits } = answer.value;
  const text = `created ${id} with ${credits} credits\nkey: ${key}\n(the key is shown only this once; only its hash is stored)`;
  return { exitCode: EXIT.ok, json: { id, key, credits }, text };
}

/** The key and its card payments (newest first); the payments are an addition to the key's fields. */
async function showKey(deps: CliDeps, id: string): Promise<CommandResult> {
  const answer = await ask(deps, "showKey", { id });
  if (!answer.ok) return failureResult(answer.error);
  if (!answer.value.found) return notFound(id);
  const listed = await ask(deps, "listPayments", { key_id: id });
  if (!listed.ok) return failureResult(listed.error);
  const { key } = answer.value;
  const { payments } = listed.value;
  return { exitCode: EXIT.ok, json: { ...key, payments }, text: describeKey(key, payments) };
}

async function listKeys(
  deps: CliDeps,
  command: Extract<Command, { name: "keys list" }>,
): Promise<CommandResult> {
  // The command line holds one of the two (args.ts refuses neither).
  const filter =
    command.account !== undefined ? { account_id: command.account } : { label: command.label ?? "" };
  const answer = await ask(deps, "listKeys", filter);
  if (!answer.ok) return failureResult(answer.error);
  return { exitCode: EXIT.ok, json: answer.value, text: describeKeyList(answer.value) };
}

async function keyUsage(deps: CliDeps, id: string, days: number): Promise<CommandResult> {
  const answer = await ask(deps, "keyUsage", { id, days });
  if (!answer.ok) return failureResult(answer.error);
  if (!answer.value.found) return notFound(id);
  return { exitCode: EXIT.ok, json: { id, days: answer.value.days }, text: describeUsage(answer.value.days) };
}

async function rotateKey(deps: CliDeps, id: string): Promise<CommandResult> {
  const answer = await ask(deps, "rotateKey", { id });
  if (!answer.ok) return failureResult(answer.error);
  const reply = answer.value;
  if (reply.outcome === "not_found") return notFound(id);
  if (reply.outcome === "revoked") return { exitCode: EXIT.failure, error: `key '${id}' is revoked` };
  const text = `rotated ${id}\nkey: ${reply.key}\n(the new key is shown only this once; the old one no longer works)`;
  return { exitCode: EXIT.ok, json: { id, key: reply.key }, text };
}

async function revokeKey(deps: CliDeps, id: string): Promise<CommandResult> {
  const answer = await ask(deps, "revokeKey", { id });
  if (!answer.ok) return failureResult(answer.error);
  const { outcome } = answer.value;
  if (outcome === "not_found") return notFound(id);
  const text = outcome === "revoked" ? `revoked ${id}` : `${id} was already revoked`;
  return { exitCode: EXIT.ok, json: { id, outcome }, text };
}

async function topUpKey(deps: CliDeps, { id, usd, usdCents }: TopUp): Promise<CommandResult> {
  // One request id per invocation: billing applies a retried top-up once.
  const request = { id, usd_cents: usdCents, request_id: `topup-${randomUUID()}` };
  const answer = await ask(deps, "topUp", request);
  if (!answer.ok) return failureResult(answer.error);
  const reply = answer.value;
  if (reply.outcome === "not_found") return notFound(id);
  if (reply.outcome === "revoked") return { exitCode: EXIT.failure, error: `key '${id}' is revoked` };
  if (reply.outcome === "below_minimum") {
    const minimum = (reply.minimum_usd_cents / 100).toFixed(2);
    return { exitCode: EXIT.usage, error: `the minimum top-up is ${minimum} USD, got ${usd}` };
  }
  if (reply.outcome === "balance_limit") {
    const { max_balance, credits_balance } = reply;
    return {
      exitCode: EXIT.failure,
      error: `refused: a balance holds at most ${max_balance} credits; ${id} has ${credits_balance}, nothing was added`,
    };
  }
  const { credits_added, credits_balance } = reply;
  const text = `added ${credits_added} credits to ${id}; balance ${credits_balance}`;
  return { exitCode: EXIT.ok, json: { credits_added, credits_balance }, text };
}

async function capKey(deps: CliDeps, id: string, monthlyCap: number | null): Promise<CommandResult> {
  const request = { id, monthly_cap: monthlyCap };
  const answer = await ask(deps, "setSpendCap", request);
  if (!answer.ok) return failureResult(answer.error);
  if (answer.value.outcome === "not_found") return notFound(id);
  const spend = answer.value.month_spend;
  return { exitCode: EXIT.ok, json: { id, month_spend: spend }, text: `${id}: ${describeMonthSpend(spend)}` };
}

async function verifyLedger(deps: CliDeps): Promise<CommandResult> {
  const answer = await ask(deps, "verifyLedger", {}, 120_000);
  if (!answer.ok) return failureResult(answer.error);
  const report = answer.value;
  const result = { json: report, text: describeVerify(report) };
  if (report.ok) return { exitCode: EXIT.ok, ...result };
  return {
    exitCode: EXIT.failure,
    ...result,
    error: `${report.mismatches.length} key(s) disagree with the journal`,
  };
}
