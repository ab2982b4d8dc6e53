/**
 * The command line of `pnpm admin`: one table of commands, each with its options and their checks,
 * parsed with node:util parseArgs into one typed command. Every argument is checked here, before
 * anything is sent to billing, against the same bounds billing applies (contracts' KEY_LIMITS,
 * TOP_UP_LIMITS); a problem is one sentence naming the option, the rule and what was given.
 */
import { parseArgs } from "node:util";
import {
  ACCOUNT_ID_PATTERN,
  err,
  KEY_ID_PATTERN,
  KEY_LIMITS,
  labelProblem,
  ok,
  parseUsdToCents,
  type Result,
  TOP_UP_LIMITS,
  USAGE_DAYS_LIMITS,
} from "@rda/contracts";

export type Command =
  | { name: "help"; text: string }
  | { name: "keys create"; json: boolean; credits?: number; qps?: number; burst?: number; label?: string }
  | { name: "keys show"; json: boolean; id: string }
  | { name: "keys list"; json: boolean; account?: string; label?: string }
  | { name: "keys usage"; json: boolean; id: string; days: number }
  | { name: "keys revoke"; json: boolean; id: string }
  | { name: "keys rotate"; json: boolean; id: string }
  | { name: "keys topup"; json: boolean; id: string; usd: string; usdCents: number }
  | { name: "keys cap"; json: boolean; id: string; monthlyCap: number | null }
  | { name: "ledger verify"; json: boolean };

/** A refused command line: the sentence, and which command's help to point at. */
export interface UsageProblem {
  readonly message: string;
  readonly help: string;
}

export type Parsed = Result<Command, UsageProblem>;

type Values = Record<string, string | boolean | undefined>;

interface CommandSpec {
  readonly summary: string;
  /** What follows the command name in its usage line. */
  readonly synopsis: string;
  readonly takesId: boolean;
  readonly options: Record<string, { readonly value: string; readonly help: string }>;
  readonly build: (json: boolean, id: string, values: Values) => Result<Command, string>;
}

const number = (n: number) => n.toLocaleString("en-US");

const COMMANDS: Record<string, CommandSpec> = {
  "keys create": {
    summary: "create a key; its secret is shown once, only its hash is stored",
    synopsis: "[--credits N] [--qps N] [--burst N] [--label TEXT] [--json]",
    takesId: false,
    options: {
      credits: {
        value: "N",
        help: `credits to start with, ${number(KEY_LIMITS.credits.min)} to ${number(KEY_LIMITS.credits.max)} (default: the free credits)`,
      },
      qps: {
        value: "N",
        help: `requests per second, ${number(KEY_LIMITS.qps.min)} to ${number(KEY_LIMITS.qps.max)} (default RATE_LIMIT_QPS)`,
      },
      burst: {
        value: "N",
        help: `burst, ${number(KEY_LIMITS.burst.min)} to ${number(KEY_LIMITS.burst.max)} (default RATE_LIMIT_BURST)`,
      },
      label: { value: "TEXT", help: `a name for people, at most ${KEY_LIMITS.labelMaxLength} characters` },
    },
    build: buildCreate,
  },
  "keys show": {
    summary: "show a key's label, balance, rate limit, state and card payments",
    synopsis: "ID [--json]",
    takesId: true,
    options: {},
    build: (json, id) => ok({ name: "keys show", json, id }),
  },
  "keys list": {
    summary: "list a portal account's keys, or the keys with a label",
    synopsis: "(--account ACCOUNT_ID | --label TEXT) [--json]",
    takesId: false,
    options: {
      account: { value: "ACCOUNT_ID", help: "a portal account's id (acct_ and 16 letters or digits)" },
      label: { value: "TEXT", help: "the exact label of the keys" },
    },
    build: buildList,
  },
  "keys usage": {
    summary: "requests charged and refunded and credits added, per day",
    synopsis: "ID [--days N] [--json]",
    takesId: true,
    options: {
      days: {
        value: "N",
        help: `the last N days, ${USAGE_DAYS_LIMITS.min} to ${USAGE_DAYS_LIMITS.max} (default 30)`,
      },
    },
    build: buildUsage,
  },
  "keys revoke": {
    summary: "revoke a key (every gateway refuses it within a second)",
    synopsis: "ID [--json]",
    takesId: true,
    options: {},
    build: (json, id) => ok({ name: "keys revoke", json, id }),
  },
  "keys rotate": {
    summary: "give a key a new secret, shown once; the old one stops working",
    synopsis: "ID [--json]",
    takesId: true,
    options: {},
    build: (json, id) => ok({ name: "keys rotate", json, id }),
  },
  "keys topup": {
    summary: "add credits bought for an amount of US dollars, priced by the ladder",
    synopsis: "ID --usd AMOUNT [--json]",
    takesId: true,
    options: {
      usd: {
        value: "AMOUNT",
        help: `US dollars like 25 or 12.50, from ${usd(TOP_UP_LIMITS.minUsdCents)} to ${usd(TOP_UP_LIMITS.maxUsdCents)}`,
      },
    },
    build: buildTopUp,
  },
  "keys cap": {
    summary: "set or remove a key's monthly spend cap (credits per calendar month, UTC)",
    synopsis: "ID --monthly (N | none) [--json]",
    takesId: true,
    options: {
      monthly: {
        value: "N|none",
        help: `credits a month, ${number(KEY_LIMITS.monthlyCap.min)} to ${number(KEY_LIMITS.monthlyCap.max)}; none removes the cap`,
      },
    },
    build: buildCap,
  },
  "ledger verify": {
    summary: "recompute every balance from the journal; exit 1 on any mismatch",
    synopsis: "[--json]",
    takesId: false,
    options: {},
    build: (json) => ok({ name: "ledger verify", json }),
  },
};

const COMMON = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const FOOTER = `Options: --json prints exactly one JSON object on stdout; --help shows a command's options.
Environment: NATS_URL (default nats://127.0.0.1:4222), RDA_NAMESPACE, and NATS_USER and
             NATS_PASSWORD where NATS requires them (the operator's identity: admin).
Exit codes: 0 ok, 1 refused or ledger mismatch, 2 usage error (nothing was sent), 3 unknown key id,
            4 billing unreachable (start the stack with pnpm start).
`;

export const USAGE = `Usage: pnpm admin <command> [options]

${Object.entries(COMMANDS)
  .map(([name, spec]) => `  ${name} ${spec.synopsis}\n      ${spec.summary}`)
  .join("\n")}

${FOOTER}`;

export function commandHelp(name: string): string {
  const spec = COMMANDS[name];
  if (!spec) return USAGE;
  const options = Object.entries(spec.options).map(([option, { value, help }]) =>
    helpRow(`--${option} ${value}`, help),
  );
  const id = spec.takesId ? [helpRow("ID", "the key's id, as keys create printed it (key_...)")] : [];
  return [
    `Usage: pnpm admin ${name} ${spec.synopsis}`,
    "",
    `${spec.summary.charAt(0).toUpperCase()}${spec.summary.slice(1)}.`,
    "",
    ...id,
    ...options,
    helpRow("--json", "print exactly one JSON object on stdout"),
    "",
    FOOTER,
  ].join("\n");
}

const helpRow = (left: string, right: string) => `  ${left.padEnd(24)}${right}`;

export function parseCommandLine(argv: string[]): Parsed {
  const name = commandName(argv);
  const spec = name === undefined ? undefined : COMMANDS[name];
  if (name === undefined || !spec) {
    const wantsHelp = argv.length === 0 || argv.some((arg) => arg === "--help" || arg === "-h");
    if (wantsHelp && !argv.some((arg) => !arg.startsWith("-") && !["keys", "ledger"].includes(arg))) {
      return ok({ name: "help", text: USAGE });
    }
    const given = argv.filter((arg) => !arg.startsWith("-")).join(" ");
    return problem("", given ? `there is no command '${given}'` : "a command is needed");
  }
  const options = { ...COMMON, ...optionsOf(spec) };
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    return problem(name, parseArgsSentence(error as Error & { code?: string }, name));
  }
  if (parsed.values.help) return ok({ name: "help", text: commandHelp(name) });
  const rest = parsed.positionals.slice(2);
  const id = rest[0] ?? "";
  if (spec.takesId && rest.length === 0) return problem(name, `'${name}' needs a key id`);
  if (rest.length > (spec.takesId ? 1 : 0)) return problem(name, `unexpected argument '${rest.at(-1)}'`);
  if (spec.takesId && !KEY_ID_PATTERN.test(id)) {
    return problem(name, `'${id}' is not a key id: ids are key_ and 16 lowercase letters or digits`);
  }
  const built = spec.build(parsed.values.json === true, id, parsed.values);
  return built.ok ? built : problem(name, built.error);
}

/** The command is the first two words that are not options or option values. */
function commandName(argv: string[]): string | undefined {
  const all = { ...COMMON };
  for (const spec of Object.values(COMMANDS)) Object.assign(all, optionsOf(spec));
  const { positionals } = parseArgs({ args: argv, options: all, allowPositionals: true, strict: false });
  return positionals.length >= 2 ? positionals.slice(0, 2).join(" ") : undefined;
}

function optionsOf(spec: CommandSpec) {
  return Object.fromEntries(Object.keys(spec.options).map((option) => [option, { type: "string" as const }]));
}

function problem(command: string, message: string): Parsed {
  return err({ message, help: command === "" ? "pnpm admin --help" : `pnpm admin ${command} --help` });
}

/** node's parseArgs messages, as one sentence of ours. */
function parseArgsSentence(error: Error & { code?: string }, command: string): string {
  const option = /'(-[^']*)'/.exec(error.message)?.[1] ?? "";
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `'${command}' has no option ${option}`;
  if (error.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const name = /--([a-z]+)/.exec(error.message)?.[1];
    return name && name !== "json" && name !== "help"
      ? `--${name} needs a value`
      : `--${name} takes no value`;
  }
  return error.message;
}

function wholeNumber(
  option: string,
  text: string | boolean | undefined,
  limits: { min: number; max: number },
): Result<number | undefined, string> {
  if (text === undefined) return ok(undefined);
  const value = Number(text);
  if (typeof text !== "string" || !/^\d{1,16}$/.test(text) || value < limits.min || value > limits.max) {
    return err(
      `--${option} must be a whole number from ${number(limits.min)} to ${number(limits.max)}, got '${text}'`,
    );
  }
  return ok(value);
}

function buildCreate(json: boolean, _id: string, values: Values): Result<Command, string> {
  const credits = wholeNumber("credits", values.credits, KEY_LIMITS.credits);
  if (!credits.ok) return credits;
  const qps = wholeNumber("qps", values.qps, KEY_LIMITS.qps);
  if (!qps.ok) return qps;
  const burst = wholeNumber("burst", values.burst, KEY_LIMITS.burst);
  if (!burst.ok) return burst;
  const label = values.label as string | undefined;
  if (label !== undefined && label.length > KEY_LIMITS.labelMaxLength) {
    return err(`--label must be at most ${KEY_LIMITS.labelMaxLength} characters, got ${label.length}`);
  }
  const problem = label === undefined ? undefined : labelProblem(label);
  if (problem !== undefined) return err(`--label: ${problem}`);
  return ok({ name: "keys create", json, credits: credits.value, qps: qps.value, burst: burst.value, label });
}

function buildList(json: boolean, _id: string, values: Values): Result<Command, string> {
  const account = values.account as string | undefined;
  const label = values.label as string | undefined;
  if ((account === undefined) === (label === undefined))
    return err("'keys list' needs --account ID or --label TEXT");
  if (account !== undefined && !ACCOUNT_ID_PATTERN.test(account)) {
    return err(`'${account}' is not an account id: ids are acct_ and 16 lowercase letters or digits`);
  }
  if (label !== undefined && (label.length === 0 || label.length > KEY_LIMITS.labelMaxLength)) {
    return err(`--label must be 1 to ${KEY_LIMITS.labelMaxLength} characters, got ${label.length}`);
  }
  return ok({ name: "keys list", json, account, label });
}

function buildUsage(json: boolean, id: string, values: Values): Result<Command, string> {
  const days = wholeNumber("days", values.days, USAGE_DAYS_LIMITS);
  if (!days.ok) return days;
  return ok({ name: "keys usage", json, id, days: days.value ?? 30 });
}

function buildTopUp(json: boolean, id: string, values: Values): Result<Command, string> {
  const text = values.usd;
  if (typeof text !== "string") return err("'keys topup' needs --usd AMOUNT");
  const amount = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!amount) return err(`--usd must be an amount of US dollars like 25 or 12.50, got '${text}'`);
  if ((amount[2] ?? "").length > 2) {
    return err(`--usd must be an amount with at most two decimals (whole cents), got '${text}'`);
  }
  const cents =
    amount[1]!.replace(/^0+(?=\d)/, "").length > 9 ? Number.POSITIVE_INFINITY : parseUsdToCents(text);
  if (cents === undefined)
    return err(`--usd must be an amount of US dollars like 25 or 12.50, got '${text}'`);
  if (cents < TOP_UP_LIMITS.minUsdCents) {
    return err(`the minimum top-up is ${usd(TOP_UP_LIMITS.minUsdCents)} USD, got ${text}`);
  }
  if (cents > TOP_UP_LIMITS.maxUsdCents) {
    return err(`the maximum top-up is ${usd(TOP_UP_LIMITS.maxUsdCents)} USD, got ${text}`);
  }
  return ok({ name: "keys topup", json, id, usd: text, usdCents: cents });
}

function buildCap(json: boolean, id: string, values: Values): Result<Command, string> {
  const text = values.monthly;
  if (typeof text !== "string")
    return err("'keys cap' needs --monthly N (credits a month) or --monthly none");
  if (text === "none") return ok({ name: "keys cap", json, id, monthlyCap: null });
  const cap = wholeNumber("monthly", text, KEY_LIMITS.monthlyCap);
  if (!cap.ok) return err(`${cap.error}, or none`);
  return ok({ name: "keys cap", json, id, monthlyCap: cap.value ?? null });
}

function usd(cents: number): string {
  return (cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}
