/**
 * Configuration from the environment, validated once at start and frozen. A bad value is a start-up
 * failure that names the variable, never a surprise in the middle of a request.
 */
import { z } from "zod";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
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

/** The variables shared by several services, with the defaults of DESIGN.md. */
export const env = {
  port: (fallback: number) =>
    z.coerce
      .number({ error: "must be a port number" })
      .int({ error: "must be a port number" })
      .min(0, { error: "must be a port number from 0 to 65535" })
      .max(65_535, { error: "must be a port number from 0 to 65535" })
      .default(fallback),
  host: () => z.string().min(1).default("127.0.0.1"),
  positiveInt: (fallback: number) =>
    z.coerce
      .number({ error: "must be a positive integer" })
      .int({ error: "must be a positive integer" })
      .min(1)
      .default(fallback),
  nonNegativeInt: (fallback: number) =>
    z.coerce
      .number({ error: "must be an integer >= 0" })
      .int({ error: "must be an integer >= 0" })
      .min(0)
      .default(fallback),
  redisUrl: () =>
    urlWithProtocols(["redis:", "rediss:"], "redis://127.0.0.1:6379 or redis://host:6379/2")
      .refine((value) => /^(\/\d{0,2})?$/.test(parseUrl(value)?.pathname ?? ""), {
        error: "database must be a number, as in redis://host:6379/2",
      })
      .default("redis://127.0.0.1:6379"),
  /** One URL or a comma-separated list of cluster seeds. */
  natsUrl: () =>
    z
      .string()
      .refine(
        (value) => value.split(",").every((url) => /^(nats|tls):\/\/[^\s/]+(:\d+)?\/?$/.test(url.trim())),
        {
          error: "must be a nats:// URL, or a comma-separated list of them",
        },
      )
      .default("nats://127.0.0.1:4222"),
  httpUrl: () => urlWithProtocols(["http:", "https:"], "https://example.com"),
  /** Prefix of every NATS subject and Redis key; lets several stacks or tests share servers. */
  namespace: () =>
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,32}$/, { error: "must be 1 to 32 letters, digits, '_' or '-'" })
      .optional(),
  logLevel: () => z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
} as const;
