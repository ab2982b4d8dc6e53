/** Requests per path, so tests can check "exactly one upstream call". */
export class RequestStats {
  #requests = new Map<string, number>();
  #total = 0;

  count(path: string): void {
    this.#requests.set(path, (this.#requests.get(path) ?? 0) + 1);
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
