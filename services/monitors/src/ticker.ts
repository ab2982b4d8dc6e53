/**
 * A loop of turns, each `tickMs` after the previous one ended (never two at once), until stopped;
 * stopping waits for the turn under way. The poller and the webhook delivery worker run on it.
 */
export interface Ticker {
  stop(): Promise<void>;
}

export function startTicker(
  tickMs: number,
  turn: (isStopped: () => boolean) => Promise<void>,
  onError: (error: unknown) => void,
): Ticker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const isStopped = () => stopped;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = turn(isStopped).catch(onError).finally(schedule);
    }, tickMs);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
