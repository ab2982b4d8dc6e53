/**
 * What each `pnpm admin` command asks billing and how the answer maps to output and an exit code.
 * Amounts are parsed here from text into integer cents; the ladder itself lives in billing.
 */
import { randomUUID } from "node:crypto";
import {
  createKeyReplySchema,
  revokeKeyReplySchema,
  type Subjects,
  showKeyReplySchema,
  topUpReplySchema,
  verifyLedgerReplySchema,
} from "@rda/contracts";
import type { NatsConnection } from "@rda/service-kit";
import { parseUsdToCents } from "../pricing.ts";
import type { Command } from "./args.ts";
import { askBilling } from "./billing-client.ts";
import { type CommandResult, EXIT } from "./exit-codes.ts";
import { describeKey, describeVerify } from "./output.ts";

export interface CliDeps {
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
}

type Runnable = Exclude<Command, { name: "help" }>;

const unavailable = (message: string): CommandResult => ({ exitCode: EXIT.unavailable, error: message });
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
    case "keys revoke":
      return revokeKey(deps, command.id);
    case "keys topup":
      return topUpKey(deps, command.id, command.usd);
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
  const answer = await askBilling(deps.nats, deps.subjects.billing.createKey, request, createKeyReplySchema);
  if (!answer.ok) return unavailable(answer.message);
  const { id, key, credits } = answer.value;
  const text = `created ${id} with ${credits} credits\nkey: ${key}\n(the key is shown only this once; only its hash is stored)`;
  return { exitCode: EXIT.ok, json: answer.value, text };
}

async function showKey(deps: CliDeps, id: string): Promise<CommandResult> {
  const answer = await askBilling(deps.nats, deps.subjects.billing.showKey, { id }, showKeyReplySchema);
  if (!answer.ok) return unavailable(answer.message);
  if (!answer.value.found) return notFound(id);
  return { exitCode: EXIT.ok, json: answer.value.key, text: describeKey(answer.value.key) };
}

async function revokeKey(deps: CliDeps, id: string): Promise<CommandResult> {
  const answer = await askBilling(deps.nats, deps.subjects.billing.revokeKey, { id }, revokeKeyReplySchema);
  if (!answer.ok) return unavailable(answer.message);
  const { outcome } = answer.value;
  if (outcome === "not_found") return notFound(id);
  const text = outcome === "revoked" ? `revoked ${id}` : `${id} was already revoked`;
  return { exitCode: EXIT.ok, json: { id, outcome }, text };
}

async function topUpKey(deps: CliDeps, id: string, usd: string): Promise<CommandResult> {
  const cents = parseUsdToCents(usd);
  if (cents === undefined) {
    return { exitCode: EXIT.usage, error: `--usd must be an amount like 25 or 12.50, got '${usd}'` };
  }
  // One request id per invocation: billing applies a retried top-up once.
  const request = { id, usd_cents: cents, request_id: `topup-${randomUUID()}` };
  const answer = await askBilling(deps.nats, deps.subjects.billing.topUp, request, topUpReplySchema);
  if (!answer.ok) return unavailable(answer.message);
  const reply = answer.value;
  if (reply.outcome === "not_found") return notFound(id);
  if (reply.outcome === "revoked") return { exitCode: EXIT.failure, error: `key '${id}' is revoked` };
  if (reply.outcome === "below_minimum") {
    const minimum = (reply.minimum_usd_cents / 100).toFixed(2);
    return { exitCode: EXIT.usage, error: `the minimum top-up is ${minimum} USD, got ${usd}` };
  }
  const { credits_added, credits_balance } = reply;
  const text = `added ${credits_added} credits to ${id}; balance ${credits_balance}`;
  return { exitCode: EXIT.ok, json: { credits_added, credits_balance }, text };
}

async function verifyLedger(deps: CliDeps): Promise<CommandResult> {
  const subject = deps.subjects.billing.verifyLedger;
  const answer = await askBilling(deps.nats, subject, {}, verifyLedgerReplySchema, 120_000);
  if (!answer.ok) return unavailable(answer.message);
  const report = answer.value;
  const result = { json: report, text: describeVerify(report) };
  if (report.ok) return { exitCode: EXIT.ok, ...result };
  return {
    exitCode: EXIT.failure,
    ...result,
    error: `${report.mismatches.length} key(s) disagree with the journal`,
  };
}
