/**
 * Preloaded by `pnpm start` into every service it runs (`node --import`). The supervisor holds the
 * other end of each service's stdin pipe; when the supervisor dies, even by SIGKILL, the kernel
 * closes it and the service reads end-of-file: it then shuts down as on SIGTERM instead of running
 * on orphaned in its own process group.
 *
 * Its stdout and stderr went to the dead supervisor too, and pino's flush at exit retries a write
 * that fails with EPIPE forever; so both are pointed at /dev/null first (nobody reads them now).
 */
import { closeSync, openSync } from "node:fs";

function outputToDevNull(): boolean {
  for (const fd of [1, 2]) {
    closeSync(fd);
    // The lowest free descriptor is the one just closed (stdin, 0, stays open).
    if (openSync("/dev/null", "w") !== fd) return false;
  }
  return true;
}

function supervisorGone(): void {
  if (!outputToDevNull()) process.kill(process.pid, "SIGKILL");
  process.kill(process.pid, "SIGTERM");
  // Shutdown steps are bounded, but nothing may keep an orphan alive.
  setTimeout(() => process.kill(process.pid, "SIGKILL"), 30_000).unref();
}

process.stdin.once("end", supervisorGone);
process.stdin.once("error", supervisorGone);
process.stdin.resume();
// The pipe alone must not keep a service alive that has finished its shutdown.
(process.stdin as NodeJS.ReadStream & { unref?: () => void }).unref?.();
