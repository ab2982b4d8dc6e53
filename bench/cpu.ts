/**
 * CPU time per process, read from /proc over a measured window: the machine-independent half of the
 * bench. Noisy figures (req/s, latency) move with whatever else the machine does; CPU seconds spent
 * per request by each process move only with the code. Linux only.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const CLOCK_TICKS_PER_SECOND =
  Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

export interface WatchedProcess {
  readonly name: string;
  readonly pid: number;
}

/** utime + stime of one process in seconds (fields 14 and 15 of /proc/PID/stat). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** Starts a window: call the returned function to get each process's CPU ms since then. */
export function startCpuWindow(processes: readonly WatchedProcess[]): () => Record<string, number> {
  const before = processes.map((process) => cpuSeconds(process.pid));
  return () =>
    Object.fromEntries(
      processes.map((process, index) => [process.name, (cpuSeconds(process.pid) - before[index]!) * 1000]),
    );
}

/** The pid listening on a local TCP port (the shared Redis and NATS servers are not our children). */
export function pidListeningOn(port: number): number | undefined {
  try {
    const output = execFileSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
    const match = /pid=(\d+)/.exec(output);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}
