/**
 * The process shell around a service: run `main`, turn a configuration error into one clear line and
 * exit code 1, and on SIGTERM/SIGINT run the shutdown steps in order (stop accepting, finish in-flight
 * work, drain NATS, quit Redis), each bounded so a stuck dependency cannot block the exit forever.
 */
import { ConfigError } from "./config.ts";
import type { Logger } from "./logger.ts";

export type ShutdownStep = readonly [name: string, run: () => Promise<unknown> | unknown];

export function runMain(service: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${service}: ${error.message}\n`);
    } else {
      process.stderr.write(
        `${service}: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
      );
    }
    process.exit(1);
  });
}

export function onShutdown(logger: Logger, steps: ShutdownStep[], stepTimeoutMs = 10_000): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, "shutting down");
    for (const [name, run] of steps) await runStep(logger, name, run, stepTimeoutMs);
    logger.info("stopped");
    logger.flush?.();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}

async function runStep(logger: Logger, name: string, run: ShutdownStep[1], timeoutMs: number) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const result = await Promise.race([Promise.resolve().then(run), timeout]);
    if (result === "timeout") logger.warn({ step: name, timeoutMs }, "shutdown step timed out");
  } catch (error) {
    logger.warn({ step: name, err: error }, "shutdown step failed");
  } finally {
    clearTimeout(timer);
  }
}
