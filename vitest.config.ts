import { defineConfig } from "vitest/config";

/**
 * The suite in three layers, by what a test starts (CONTRIBUTING.md#where-a-test-goes):
 *
 * - unit: starts nothing outside the test's own process: no Redis or NATS, no child process, none
 *   of the services. A package's test may answer its client from a scripted peer in its own process
 *   on loopback (the SDK against `test/support/fake-gateway.ts`, the upstream client against a
 *   scripted server); a test that starts one of the services, the simulator included, is a service
 *   test. `pnpm test:unit` runs them with neither Redis nor NATS reachable. A file is here only
 *   when listed; a new file runs in its folder's layer below (where the servers are there) until it
 *   is listed.
 * - service: one service or package on its real socket or subjects, with real Redis and NATS.
 * - stack: the whole stack or a browser (`test/support/stack.ts`), in `test/`.
 *
 * `pnpm test` runs all three; only the layers that need servers run the global setup, which finds
 * Redis and NATS (JetStream) and hands their URLs to the workers.
 */
const UNIT = [
  "packages/adapter-kit/test/integer-epochs.rules.test.ts",
  "packages/contracts/test/**/*.test.ts",
  "packages/sdk/test/sdk.error.test.ts",
  "packages/sdk/test/sdk.generated.test.ts",
  "packages/sdk/test/sdk.idempotency.test.ts",
  "packages/sdk/test/sdk.request.test.ts",
  "packages/sdk/test/sdk.retry.test.ts",
  "packages/sdk/test/sdk.webhooks.test.ts",
  "packages/service-kit/test/config.validation.test.ts",
  "packages/service-kit/test/health.readiness.test.ts",
  "packages/service-kit/test/logger.secrets.test.ts",
  "packages/service-kit/test/loop.turns.test.ts",
  "packages/service-kit/test/redis-keys.layout.test.ts",
  "packages/service-kit/test/safe-fetch.outgoing.test.ts",
  "packages/upstream-client/test/classify.rules.test.ts",
  "packages/upstream-client/test/client.http.test.ts",
  "packages/upstream-client/test/client.identity.test.ts",
  "packages/upstream-client/test/data-bytes.slicing.test.ts",
  "packages/upstream-client/test/freshness.rules.test.ts",
  "packages/upstream-client/test/rate-limit-headers.forms.test.ts",
  "packages/upstream-client/test/retry-policy.rules.test.ts",
  "packages/webhooks/test/webhooks.delivery.test.ts",
  "services/adapter-posts/test/aggregate-buckets.forms.test.ts",
  "services/adapter-posts/test/phrase-filter.rules.test.ts",
  "services/billing/test/settings.budget.test.ts",
  "services/exports/test/csv.injection.test.ts",
  "services/exports/test/worker.money.test.ts",
  "services/gateway/test/cache-control.rules.test.ts",
  "services/gateway/test/config.edge.test.ts",
  "services/gateway/test/config.top-up-link.test.ts",
  "services/exports/test/quote.budget.test.ts",
  "services/gateway/test/layers.dependency-direction.test.ts",
  "services/mcp/test/archive-results.cutting.test.ts",
  "services/mcp/test/config.load.test.ts",
  "services/mcp/test/results.cutting.test.ts",
  "services/monitors/test/webhook-retry.delays.test.ts",
  "services/portal/test/config.load.test.ts",
  "services/portal/test/mail-limits.client-bucket.test.ts",
  "services/portal/test/words.unit.test.ts",
  "services/upstream-sim/test/corpus.determinism.test.ts",
  "services/upstream-sim/test/corpus.shape.test.ts",
  "services/upstream-sim/test/dates.parse.test.ts",
  // Repository rules: source and docs read from disk.
  "test/architecture/**/*.test.ts",
  "test/contract/deadline-settings.test.ts",
  "test/contract/error-catalog.test.ts",
  "test/docs/**/*.test.ts",
];

/** Whole-stack tests outside `test/` keep the `.e2e` aspect until they move there. */
const STACK = ["test/**/*.test.ts", "services/*/test/**/*.e2e.test.ts"];
const STACK_SERVICE_LEVEL = ["test/upstream-check/**/*.test.ts"];

const SERVICE = [
  "packages/*/test/**/*.test.ts",
  "services/*/test/**/*.test.ts",
  "deploy/test/**/*.test.ts",
  ...STACK_SERVICE_LEVEL,
];

const WITH_SERVERS = { globalSetup: ["./vitest.global-setup.ts"] };

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: a few workers keep the machine responsive for the servers the tests start.
    maxWorkers: 3,
    // Each worker process runs its share of the files one after another, keeping the modules it
    // loaded: a fresh process per file spent most of every layer's time loading the same modules
    // again (for the stack layer, the whole in-process stack's); CONTRIBUTING.md#running-tests has
    // the durations. Sound because no file changes anything process-wide that the next would inherit
    // (test/architecture/shared-test-workers.test.ts): each starts its own servers in its own
    // namespace and stops them, and metrics registries are per instance.
    isolate: false,
    reporters: ["default"],
    projects: [
      { extends: true, test: { name: "unit", include: UNIT } },
      {
        extends: true,
        test: {
          name: "service",
          include: SERVICE,
          exclude: [...UNIT, "services/*/test/**/*.e2e.test.ts", "**/node_modules/**"],
          ...WITH_SERVERS,
        },
      },
      {
        extends: true,
        test: {
          name: "stack",
          include: STACK,
          exclude: [...UNIT, ...STACK_SERVICE_LEVEL, "**/node_modules/**"],
          ...WITH_SERVERS,
        },
      },
    ],
  },
});
