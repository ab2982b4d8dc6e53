/** The command line of `pnpm admin`, parsed with node:util parseArgs into one typed command. */
import { parseArgs } from "node:util";

export type Command =
  | { name: "help" }
  | { name: "keys create"; json: boolean; credits?: number; qps?: number; burst?: number; label?: string }
  | { name: "keys show"; json: boolean; id: string }
  | { name: "keys revoke"; json: boolean; id: string }
  | { name: "keys topup"; json: boolean; id: string; usd: string }
  | { name: "ledger verify"; json: boolean };

export type Parsed = { ok: true; command: Command } | { ok: false; problem: string };

export const USAGE = `Usage: pnpm admin <command> [options]

  keys create [--credits N] [--qps N] [--burst N] [--label TEXT] [--json]
                                  create a key; its secret is shown once
  keys show ID [--json]           show a key's label, balance, rate limit and state
  keys revoke ID [--json]         revoke a key (every gateway refuses it within a second)
  keys topup ID --usd AMOUNT [--json]
                                  add credits bought for AMOUNT US dollars (at least 5)
  ledger verify [--json]          recompute every balance from the journal

Options: --json prints exactly one JSON object on stdout; --help shows this text.
Environment: NATS_URL (default nats://127.0.0.1:4222), RDA_NAMESPACE.
Exit codes: 0 ok, 1 refused or ledger mismatch, 2 usage error or bad amount,
            3 unknown key id, 4 billing unreachable (start the stack with pnpm start).
`;

const OPTIONS = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  credits: { type: "string" },
  qps: { type: "string" },
  burst: { type: "string" },
  label: { type: "string" },
  usd: { type: "string" },
} as const;

/** Which options each command accepts (beyond --json and --help). */
const ALLOWED: Record<string, readonly string[]> = {
  "keys create": ["credits", "qps", "burst", "label"],
  "keys show": [],
  "keys revoke": [],
  "keys topup": ["usd"],
  "ledger verify": [],
};

export function parseCommandLine(argv: string[]): Parsed {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) return { ok: true, command: { name: "help" } };
  const name = positionals.slice(0, 2).join(" ");
  const allowed = ALLOWED[name];
  if (!allowed) return { ok: false, problem: `unknown command '${positionals.join(" ")}'` };
  const extra = Object.keys(values).find((option) => option !== "json" && !allowed.includes(option));
  if (extra) return { ok: false, problem: `'${name}' takes no --${extra} option` };
  return build(name, positionals.slice(2), values);
}

type Values = { [K in keyof typeof OPTIONS]?: K extends "json" | "help" ? boolean : string };

function build(name: string, rest: string[], values: Values): Parsed {
  const json = values.json ?? false;
  const wantsId = name !== "keys create" && name !== "ledger verify";
  if (wantsId && rest.length !== 1) return { ok: false, problem: `'${name}' needs exactly one key id` };
  if (!wantsId && rest.length > 0) return { ok: false, problem: `unexpected argument '${rest[0]}'` };
  const id = rest[0] ?? "";
  if (name === "keys show" || name === "keys revoke") return { ok: true, command: { name, json, id } };
  if (name === "keys topup") {
    if (values.usd === undefined) return { ok: false, problem: "'keys topup' needs --usd AMOUNT" };
    return { ok: true, command: { name, json, id, usd: values.usd } };
  }
  if (name === "ledger verify") return { ok: true, command: { name, json } };
  return buildCreate(json, values);
}

function buildCreate(json: boolean, values: Values): Parsed {
  const numbers: Record<"credits" | "qps" | "burst", number | undefined> = {
    credits: undefined,
    qps: undefined,
    burst: undefined,
  };
  for (const option of ["credits", "qps", "burst"] as const) {
    const text = values[option];
    if (text === undefined) continue;
    if (!/^\d{1,10}$/.test(text)) return { ok: false, problem: `--${option} must be a whole number` };
    numbers[option] = Number(text);
  }
  const command: Command = { name: "keys create", json, ...numbers, label: values.label };
  return { ok: true, command };
}
