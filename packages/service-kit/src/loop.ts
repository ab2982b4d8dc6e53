/**
 * The one way a service repeats work on a timer (docs/architecture.md#background-work): turns,
 * each `everyMs` after the previous one ended, never two at once (a slow turn delays the next
 * instead of piling a second on top of it), until stopped. `stop()` waits for the turn under way,
 * so a service's shutdown never cuts a turn off halfway. A turn that throws is logged and the loop
 * goes on: one bad turn (Redis or NATS briefly away) must not end the work for good.
 *
 * The timer is unref'd: a loop alone never keeps a process alive; the service's own servers do.
 */
import type { Logger } from "./logger.ts";

export interface Loop {
  /** Ends the loop: no turn starts after this, and it resolves once the turn under way ended. */
  stop(): Promise<void>;
}

export interface LoopOptions {
  /** What the loop does, for its log lines ("webhook delivery", "debit voider"). */
  readonly name: string;
  /** The pause between the end of one turn and the start of the next. */
  readonly everyMs: number;
  /** One turn; `isStopped` lets a long turn end early once the loop is being stopped. */
  readonly turn: (isStopped: () => boolean) => Promise<void>;
  readonly logger: Logger;
  /** Run the first turn at once rather than after `everyMs` (default false). */
  readonly startNow?: boolean;
}

export function startLoop(options: LoopOptions): Loop {
  const { name, everyMs, turn, logger } = options;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const isStopped = () => stopped;
  const runTurn = () => {
    timer = undefined;
    running = Promise.resolve()
      .then(() => turn(isStopped))
      .catch((error: unknown) =>
        logger.warn({ err: error, loop: name }, `${name} turn failed; next turn goes on`),
      )
      .finally(schedule);
  };
  function schedule() {
    if (stopped) return;
    timer = setTimeout(runTurn, everyMs);
    timer.unref();
  }
  if (options.startNow) runTurn();
  else schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
