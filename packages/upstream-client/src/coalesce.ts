/**
 * Identical concurrent calls (same request path) share one upstream request: a burst of callers asking
 * for the same page costs the upstream, and our shared budget, one request.
 */

export interface Coalescer<T> {
  run(key: string, start: () => Promise<T>): { promise: Promise<T>; joined: boolean };
}

export function createCoalescer<T>(): Coalescer<T> {
  const inFlight = new Map<string, Promise<T>>();
  return {
    run(key, start) {
      const running = inFlight.get(key);
      if (running) return { promise: running, joined: true };
      const promise = start().finally(() => inFlight.delete(key));
      inFlight.set(key, promise);
      return { promise, joined: false };
    },
  };
}
