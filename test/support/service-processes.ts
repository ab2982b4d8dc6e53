/**
 * Services as real child processes, each its own `main.ts` as `pnpm start` runs it (or, `built`, the
 * JavaScript `pnpm build` makes of it, as the images run it), with every log line kept so a test can
 * read what each process logged.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface ServiceProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Every line the process wrote so far, stdout and stderr. */
  lines(): readonly string[];
  /** Its JSON log lines, parsed (other lines skipped). */
  logs(): Record<string, unknown>[];
  /** Resolves with the first line matching `pattern`; rejects if the process exits first. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it exited. */
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /** Runs the JavaScript `pnpm build` made of main.ts. */
  built?: boolean;
  /**
   * Runs this module (relative to the repository) instead of main.ts: a test's replica process that
   * passes the service settings no deployment chooses (its loops' timings) in code, not as variables.
   */
  entry?: string;
  /** Arguments after the module: the entry's settings, as JSON. */
  args?: readonly string[];
}

export function spawnService(
  name: string,
  env: NodeJS.ProcessEnv,
  options: SpawnOptions = {},
): ServiceProcess {
  const args = options.built
    ? ["--enable-source-maps", join(ROOT, "services", name, "dist", "main.mjs")]
    : ["--import", "tsx", join(ROOT, options.entry ?? join("services", name, "src", "main.ts"))];
  args.push(...(options.args ?? []));
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters = new Set<(line: string) => void>();
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => {
      lines.push(line);
      for (const waiter of waiters) waiter(line);
    });
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    name,
    child,
    lines: () => lines,
    logs: () => lines.flatMap((line) => parseJsonLine(line)),
    waitForLine(pattern, timeoutMs = 60_000) {
      const seen = lines.find((line) => pattern.test(line));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const done = (outcome: () => void) => {
          clearTimeout(timer);
          waiters.delete(onLine);
          outcome();
        };
        const onLine = (line: string) => {
          if (pattern.test(line)) done(() => resolve(line));
        };
        const timer = setTimeout(
          () =>
            done(() =>
              reject(
                new Error(`${name}: no line matching ${pattern} in ${timeoutMs} ms:\n${lines.join("\n")}`),
              ),
            ),
          timeoutMs,
        );
        waiters.add(onLine);
        void exited.then(() =>
          done(() => reject(new Error(`${name} exited before logging ${pattern}:\n${lines.join("\n")}`))),
        );
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

function parseJsonLine(line: string): Record<string, unknown>[] {
  if (!line.startsWith("{")) return [];
  try {
    return [JSON.parse(line) as Record<string, unknown>];
  } catch {
    return [];
  }
}

/**
 * Builds services to JavaScript with `pnpm build`'s script (scripts/build.mjs), those whose sources
 * changed since their last build only: several test files start the same built services, and a
 * service another file is running keeps its files.
 */
export function buildServices(names: readonly string[]): void {
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), "--if-changed", ...names], {
    cwd: ROOT,
    stdio: "pipe",
  });
}
