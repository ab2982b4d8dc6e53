/**
 * Configuration from the environment, validated once at start and frozen. A bad value is a start-up
 * failure that names the variable, never a surprise in the middle of a request.
 */
import {
  type Deadlines,
  deadlineOrderProblems,
  deadlinesWithDefaults,
  NAMESPACE_PATTERN,
} from "@rda/contracts";
import { z } from "zod";

/** A NATS user name: also a token of its private inbox prefix, `_INBOX_<user>`. */
const NATS_USER_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/**
 * The start-up error for a port another process holds, naming the variable that sets it: a service
 * then stops with one sentence saying what to change, before it says it is listening or ready.
 */
export function portTakenError(error: unknown, variable: string, port: number, host: string): unknown {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== "EADDRINUSE") return error;
  return new ConfigError([
    `${variable}: port ${port} on ${host} is already in use (another process, perhaps another stack, holds it); set ${variable} to a free port, or 0 for any`,
  ]);
}

export function loadConfig<S extends z.ZodRawShape>(
  shape: S,
  env: Record<string, string | undefined> = process.env,
): Readonly<z.output<z.ZodObject<S>>> {
  const parsed = z.object(shape).safeParse(pickDefined(env, Object.keys(shape)));
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  }
  return Object.freeze(parsed.data);
}

/**
 * Stops the process at start when the deadlines it read break the order two processes rely on
 * (packages/contracts/src/bounds.ts): each pair whose two variables it reads.
 */
export function assertDeadlineOrder(config: Partial<Deadlines>): void {
  const problems = deadlineOrderProblems(deadlinesWithDefaults(config), Object.keys(config));
  if (problems.length > 0) throw new ConfigError(problems);
}

/** Empty variables count as unset, as in most shells' `VAR= cmd`. */
function pickDefined(env: Record<string, string | undefined>, names: string[]) {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== "") picked[name] = value;
  }
  return picked;
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

const urlWithProtocols = (protocols: string[], example: string) =>
  z.string().refine((value) => protocols.includes(parseUrl(value)?.protocol ?? ""), {
    error: `must be a URL like ${example}`,
    abort: true,
  });

function redisUrlShape() {
  return urlWithProtocols(["redis:", "rediss:"], "redis://127.0.0.1:6379 or redis://host:6379/2").refine(
    (value) => /^(\/\d{0,2})?$/.test(parseUrl(value)?.pathname ?? ""),
    { error: "database must be a number, as in redis://host:6379/2" },
  );
}

/** The variables shared by several services, with their documented defaults (docs/operations.md#environment). */
export const env = {
  port: (fallback: number) =>
    z.coerce
      .number({ error: "must be a port number" })
      .int({ error: "must be a port number" })
      .min(0, { error: "must be a port number from 0 to 65535" })
      .max(65_535, { error: "must be a port number from 0 to 65535" })
      .default(fallback),
  host: () => z.string().min(1).default("127.0.0.1"),
  /** A value sent as an HTTP header (a User-Agent): printable ASCII, so it can never split a header. */
  headerText: () =>
    z
      .string()
      .regex(/^[\x20-\x7e]{1,200}$/, { error: "must be 1 to 200 printable ASCII characters" })
      .optional(),
  positiveInt: (fallback: number) =>
    z.coerce
      .number({ error: "must be a positive integer" })
      .int({ error: "must be a positive integer" })
      .min(1)
      .default(fallback),
  /** A rate and the like: fractions allowed (0.5 per second). */
  positiveNumber: (fallback: number) =>
    z.coerce
      .number({ error: "must be a number above 0" })
      .positive({ error: "must be a number above 0" })
      .default(fallback),
  /** A share: a number from 0 to 1. */
  fraction: (fallback: number) =>
    z.coerce
      .number({ error: "must be a number from 0 to 1" })
      .min(0, { error: "must be a number from 0 to 1" })
      .max(1, { error: "must be a number from 0 to 1" })
      .default(fallback),
  nonNegativeInt: (fallback: number) =>
    z.coerce
      .number({ error: "must be an integer >= 0" })
      .int({ error: "must be an integer >= 0" })
      .min(0)
      .default(fallback),
  redisUrl: () => redisUrlShape().default("redis://127.0.0.1:6379"),
  /** A second Redis a service may use for something apart (the adapters' response cache). */
  optionalRedisUrl: () => redisUrlShape().optional(),
  /** One URL or a comma-separated list of cluster seeds; credentials go in NATS_USER/NATS_PASSWORD. */
  natsUrl: () =>
    z
      .string()
      .refine(
        (value) => value.split(",").every((url) => /^(nats|tls):\/\/[^\s/]+(:\d+)?\/?$/.test(url.trim())),
        {
          error: "must be a nats:// URL, or a comma-separated list of them",
          abort: true,
        },
      )
      .refine((value) => !value.includes("@"), {
        error: "must not carry credentials: set NATS_USER and NATS_PASSWORD instead",
      })
      .default("nats://127.0.0.1:4222"),
  /** Copies of every JetStream stream and bucket a service makes (jetstream-setup.ts): 1, 3 or 5. */
  natsReplicas: () =>
    z.coerce
      .number({ error: "must be 1, 3 or 5" })
      .refine((n) => [1, 3, 5].includes(n), { error: "must be 1, 3 or 5" })
      .default(1),
  /** The service's identity on NATS (deploy/nats/auth.conf); unset with NATS_PASSWORD: no authentication. */
  natsUser: () =>
    z.string().regex(NATS_USER_PATTERN, { error: "must be 1 to 64 letters, digits, '_' or '-'" }).optional(),
  natsPassword: () => z.string().regex(/^\S+$/, { error: "must not contain white space" }).optional(),
  httpUrl: () => urlWithProtocols(["http:", "https:"], "https://example.com"),
  /** Prefix of every NATS subject and Redis key; lets several stacks or tests share servers. */
  namespace: () =>
    z.string().regex(NAMESPACE_PATTERN, { error: "must be 1 to 32 letters, digits, '_' or '-'" }).optional(),
  logLevel: () => z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Behind a load balancer: `true`, a hop count, or the proxies' addresses (comma-separated). */
  trustProxy: () =>
    z
      .string()
      .regex(/^(true|false|\d{1,2}|[0-9a-fA-F:.,/ ]+)$/, {
        error: "must be true, false, a hop count, or comma-separated proxy addresses/CIDRs",
      })
      .transform((value): TrustProxy => {
        if (value === "true" || value === "false") return value === "true";
        return /^\d+$/.test(value) ? Number(value) : value;
      })
      .default(false),
  /** Comma-separated web origins, each exactly as a browser sends it (scheme://host[:port]). */
  originList: () =>
    z
      .string()
      .transform((raw) =>
        raw
          .split(",")
          .map((origin) => origin.trim())
          .filter((origin) => origin !== ""),
      )
      .refine((origins) => origins.every(isOrigin), {
        error: "must be comma-separated origins such as https://app.example.com or http://localhost:6274",
      })
      .default([]),
} as const;

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value;
  } catch {
    return false;
  }
}

/** Whose `X-Forwarded-For` names the client: nobody's, everybody's, the nearest N hops', or these. */
export type TrustProxy = boolean | number | string;

/** fastify's `trustProxy` for a setting: its types take a hop count as a function. */
export function trustProxyOption(setting: TrustProxy) {
  return typeof setting === "number" ? (_address: string, hop: number) => hop < setting : setting;
}

/** Who a service is on NATS: its user and password, or no authentication at all (a local NATS). */
export interface NatsIdentity {
  readonly user: string;
  readonly password: string;
}

/**
 * NATS_USER and NATS_PASSWORD, which come as a pair: neither (a plain local NATS, as under
 * `pnpm start`) or both. Called right after `loadConfig`, so one without the other stops the service
 * at start, naming the missing variable.
 */
export function natsIdentity(config: {
  readonly NATS_USER?: string | undefined;
  readonly NATS_PASSWORD?: string | undefined;
}): NatsIdentity | undefined {
  const { NATS_USER: user, NATS_PASSWORD: password } = config;
  if (user === undefined && password === undefined) return undefined;
  if (user === undefined) throw new ConfigError(["NATS_USER: must be set with NATS_PASSWORD"]);
  if (password === undefined) throw new ConfigError(["NATS_PASSWORD: must be set with NATS_USER"]);
  return { user, password };
}
