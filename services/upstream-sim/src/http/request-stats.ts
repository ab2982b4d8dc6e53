/** Distinct paths kept; past that, requests to new paths are counted under OTHER_PATHS. */
const MAX_PATHS = 200;
const OTHER_PATHS = "(other)";

/** Requests per path, so tests can check "exactly one upstream call". */
export class RequestStats {
  #requests = new Map<string, number>();
  #total = 0;

  count(path: string): void {
    // A client probing random paths must not grow this map without bound.
    const key = this.#requests.has(path) || this.#requests.size < MAX_PATHS ? path : OTHER_PATHS;
    this.#requests.set(key, (this.#requests.get(key) ?? 0) + 1);
    this.#total += 1;
  }

  reset(): void {
    this.#requests = new Map();
    this.#total = 0;
  }

  snapshot(faultsInjected: number): {
    requests: Record<string, number>;
    total: number;
    faults_injected: number;
  } {
    return {
      requests: Object.fromEntries(this.#requests),
      total: this.#total,
      faults_injected: faultsInjected,
    };
  }
}
