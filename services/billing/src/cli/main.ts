/**
 * `pnpm admin`: the operator CLI. It talks to the running billing service over NATS (NATS_URL,
 * RDA_NAMESPACE, and NATS_USER/NATS_PASSWORD: the operator's identity, `admin` in
 * deploy/nats/auth.conf) and exits with a code scripts can trust (see exit-codes.ts and USAGE).
 */
import { buildSubjects } from "@rda/contracts";
import {
  ConfigError,
  connectNats,
  createLogger,
  loadConfig,
  type NatsIdentity,
  natsIdentity,
  redactUrl,
} from "@rda/service-kit";
import { parseCommandLine } from "./args.ts";
import { runCommand } from "./commands.ts";
import { adminCliConfigShape } from "./config.ts";
import { type CommandResult, EXIT } from "./exit-codes.ts";
import { START_HINT } from "./failure-result.ts";
import { printResult } from "./output.ts";

async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandLine(argv);
  if (!parsed.ok) {
    return fail({ exitCode: EXIT.usage, error: `${parsed.error.message} (see ${parsed.error.help})` });
  }
  const command = parsed.value;
  if (command.name === "help") {
    process.stdout.write(command.text);
    return EXIT.ok;
  }
  let config: { NATS_URL: string; RDA_NAMESPACE?: string | undefined };
  let identity: NatsIdentity | undefined;
  try {
    const loaded = loadConfig(adminCliConfigShape);
    identity = natsIdentity(loaded);
    config = loaded;
  } catch (error) {
    return fail({
      exitCode: EXIT.usage,
      error: error instanceof ConfigError ? error.message : String(error),
    });
  }
  const logger = createLogger("admin", { level: "silent" });
  let nats: Awaited<ReturnType<typeof connectNats>>;
  try {
    nats = await connectNats(config.NATS_URL, "admin-cli", logger, identity);
  } catch (error) {
    const where = redactUrl(config.NATS_URL);
    return fail({
      exitCode: EXIT.unavailable,
      error: `cannot reach NATS at ${where} (${String(error)}); ${START_HINT}`,
    });
  }
  try {
    const result = await runCommand({ nats, subjects: buildSubjects(config.RDA_NAMESPACE ?? "") }, command);
    printResult(result, command.json);
    return result.exitCode;
  } finally {
    await nats.close();
  }
}

function fail(result: CommandResult): number {
  printResult(result, false);
  return result.exitCode;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `admin: unexpected error: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exitCode = EXIT.failure;
  },
);
