/**
 * The stack as an operator observes it, every service a real process running the JavaScript the
 * images run (`pnpm build`): one request sent with a `traceparent` is one trace across the gateway,
 * billing and the adapter (their log lines name it and the spans they export to an OTLP receiver link
 * up); every service's internal metrics port serves metrics that `promtool check metrics` accepts,
 * while the public API port serves none; and every metric the dashboard and the alert rules query is
 * one the services serve.
 */
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSubjects, createKeyReplySchema } from "@rda/contracts";
import { jetstreamManager, type NatsConnection, requestJson } from "@rda/service-kit";
import {
  connectTestNats,
  connectTestRedis,
  deleteNamespaceKeys,
  freePort,
  testNamespace,
  testNatsUrl,
  testRedisUrl,
  waitFor,
} from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observabilityFiles, observabilityQueries } from "../../deploy/validate/observability.ts";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../support/otlp-receiver.ts";
import { promtoolCheckMetrics } from "../support/promtool.ts";
import { buildServices, type ServiceProcess, spawnService } from "../support/service-processes.ts";
import { ROOT } from "./support.ts";

const READY: Record<string, RegExp> = {
  "upstream-sim": /upstream simulator listening/,
  billing: /billing ready/,
  "adapter-posts": /adapter ready/,
  "adapter-tree": /adapter ready/,
  "adapter-communities": /adapter ready/,
  "adapter-users": /adapter ready/,
  mcp: /MCP service listening/,
  portal: /portal listening/,
  gateway: /gateway listening/,
  // Built with DuckDB's native engine beside the bundle (scripts/build.mjs NATIVE_PACKAGES): this
  // start proves the image's layout loads it.
  exports: /exports listening/,
  monitors: /monitors ready/,
};
const SERVICES = Object.keys(READY);

describe("the stack's traces and metrics", () => {
  const namespace = testNamespace("observe");
  const processes = new Map<string, ServiceProcess>();
  const metricsPorts = new Map<string, number>();
  let receiver: OtlpReceiver;
  let nats: NatsConnection;
  let gatewayUrl = "";
  let simUrl = "";
  let portalUrl = "";

  beforeAll(async () => {
    buildServices(SERVICES);
    receiver = await startOtlpReceiver();
    nats = await connectTestNats();
    const [port, simPort, mcpPort, portalPort, internalPort, exportsPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    for (const name of SERVICES) metricsPorts.set(name, await freePort());
    gatewayUrl = `http://127.0.0.1:${port}`;
    portalUrl = `http://127.0.0.1:${portalPort}`;
    simUrl = `http://127.0.0.1:${simPort}`;
    const common = {
      ...process.env,
      NATS_URL: testNatsUrl(),
      REDIS_URL: testRedisUrl(),
      RDA_NAMESPACE: namespace,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      BUILD_COMMIT: "c0ffee1",
      HEALTH_PORT: "0",
      PORT: String(port),
      SIM_PORT: String(simPort),
      SIM_SCALE: "0.05",
      MCP_PORT: String(mcpPort),
      MCP_URL: `http://127.0.0.1:${mcpPort}`,
      PORTAL_PORT: String(portalPort),
      PORTAL_URL: `http://127.0.0.1:${portalPort}`,
      GATEWAY_INTERNAL_PORT: String(internalPort),
      GATEWAY_URL: `http://127.0.0.1:${internalPort}`,
      EXPORTS_PORT: String(exportsPort),
      EXPORTS_DIR: join(tmpdir(), `rda-observe-exports-${process.pid}`),
      UPSTREAM_URL: simUrl,
      // Billing and the adapters log one line per request they answer at debug level.
      LOG_LEVEL: "debug",
    };
    for (const name of SERVICES) {
      const env = { ...common, METRICS_PORT: String(metricsPorts.get(name)) };
      const own = name === "upstream-sim" ? { ...env, LOG_LEVEL: "info" } : env;
      processes.set(name, spawnService(name, own, { built: true }));
    }
    await Promise.all(SERVICES.map((name) => processes.get(name)!.waitForLine(READY[name]!, 90_000)));
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...processes.values()].map((service) => service.stop()));
    const jsm = await jetstreamManager(nats);
    await jsm.streams.delete(buildSubjects(namespace).refundStream).catch(() => undefined);
    const redis = await connectTestRedis();
    await deleteNamespaceKeys(redis, namespace);
    redis.disconnect();
    await nats.close();
    await receiver.close();
  }, 30_000);

  async function createKey(): Promise<string> {
    const subjects = buildSubjects(namespace);
    const reply = await requestJson(
      nats,
      subjects.billing.createKey,
      { label: "observe" },
      createKeyReplySchema,
      10_000,
    );
    if (!reply.ok || reply.value.outcome !== "created") throw new Error(`no key: ${JSON.stringify(reply)}`);
    return reply.value.key;
  }

  async function someSubreddit(): Promise<string> {
    const found = (await (await fetch(`${simUrl}/api/subreddits/search?limit=1`)).json()) as {
      data: { display_name: string }[];
    };
    return found.data[0]!.display_name;
  }

  it("carries a caller's traceparent into the gateway's, billing's and the adapter's log lines and spans, as one trace", async () => {
    const key = await createKey();
    const traceId = randomBytes(16).toString("hex");
    const callerSpanId = randomBytes(8).toString("hex");
    const response = await fetch(`${gatewayUrl}/v1/posts?subreddit=${await someSubreddit()}&limit=2`, {
      headers: { "x-api-key": key, traceparent: `00-${traceId}-${callerSpanId}-01` },
    });
    expect(response.status).toBe(200);
    const requestId = response.headers.get("x-request-id");

    for (const name of ["gateway", "billing", "adapter-posts"]) {
      const line = await waitFor(
        () =>
          processes
            .get(name)!
            .logs()
            .find((log) => log.trace_id === traceId),
        `a ${name} log line with the trace id`,
      );
      expect(line, name).toMatchObject({ trace_id: traceId, request_id: requestId });
    }

    const spans = await waitFor((): ReceivedSpan[] | undefined => {
      const found = receiver.spans().filter((span) => span.traceId === traceId);
      const services = new Set(found.map((span) => span.service));
      const complete = ["gateway", "billing", "adapter-posts"].every((name) => services.has(name));
      return complete && found.some((span) => span.name.startsWith("GET /api/")) ? found : undefined;
    }, "spans of the trace from the gateway, billing and adapter-posts").then((found) => found ?? []);
    expectOneTree(spans, callerSpanId);
    const parentOf = (span: ReceivedSpan) => spans.find((other) => other.spanId === span.parentSpanId);
    const root = spans.find((span) => span.parentSpanId === callerSpanId)!;
    expect(root).toMatchObject({ service: "gateway", name: "GET /v1/posts" });
    const billingServer = spans.find((s) => s.service === "billing" && s.name.endsWith("billing.admit"))!;
    expect(parentOf(billingServer)).toMatchObject({ service: "gateway", name: billingServer.name });
    expect(spans.some((s) => s.service === "billing" && parentOf(s)?.spanId === billingServer.spanId)).toBe(
      true,
    );
    const upstream = spans.find((s) => s.service === "adapter-posts" && s.name.startsWith("GET /api/"))!;
    const adapterServer = parentOf(upstream)!;
    expect(adapterServer).toMatchObject({ service: "adapter-posts" });
    expect(parentOf(adapterServer)).toMatchObject({ service: "gateway" });
  });

  it("serves each service's metrics on its own metrics port, clean for promtool, with its build info", async () => {
    for (const name of SERVICES) {
      const response = await fetch(`http://127.0.0.1:${metricsPorts.get(name)}/metrics`);
      expect(response.status, name).toBe(200);
      const text = await response.text();
      expect(promtoolCheckMetrics(text), name).toEqual({ status: 0, output: "" });
      expect(text, name).toContain(`rda_build_info{service="${name}",version="1.0.0",commit="c0ffee1"} 1`);
    }
  }, 90_000); // a promtool run per service: a bound for a hang, not for speed

  it("counts what the request did: gateway traffic, billing's debit and the adapter's upstream call", async () => {
    const scrape = async (name: string) =>
      (await fetch(`http://127.0.0.1:${metricsPorts.get(name)}/metrics`)).text();
    expect(await scrape("gateway")).toMatch(/^gateway_key_cache_lookups_total\{result="miss"\} [1-9]/m);
    expect(await scrape("gateway")).toMatch(/^gateway_http_requests_in_flight \d/m);
    const billing = await scrape("billing");
    expect(billing).toMatch(/^billing_debits_total\{outcome="admitted"\} [1-9]/m);
    expect(billing).toMatch(/^billing_keys_total\{change="created"\} [1-9]/m);
    expect(billing).toMatch(/^billing_refunds_pending\{state="undelivered"\} 0/m);
    const posts = await scrape("adapter-posts");
    expect(posts).toMatch(
      /^upstream_requests_total\{adapter="adapter-posts",operation="listPosts",status_class="2xx"\} [1-9]/m,
    );
    expect(posts).toMatch(
      /^upstream_calls_total\{adapter="adapter-posts",operation="listPosts",outcome="ok"\} [1-9]/m,
    );
    expect(posts).toContain('upstream_call_duration_seconds_bucket{le="0.5",adapter="adapter-posts"');
  });

  it("serves every metric that the Grafana dashboard and the alert rules query", async () => {
    const served = new Set(["up"]);
    for (const name of SERVICES) {
      const text = await (await fetch(`http://127.0.0.1:${metricsPorts.get(name)}/metrics`)).text();
      for (const [, family, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
        served.add(family!);
        if (type === "histogram")
          for (const suffix of ["_bucket", "_sum", "_count"]) served.add(`${family}${suffix}`);
      }
    }
    const queries = observabilityQueries(observabilityFiles(join(ROOT, "deploy", "observability")));
    expect(queries.length).toBeGreaterThan(20);
    const unknown = queries.flatMap(({ where, expr }) =>
      [...expr.matchAll(/\b(?:gateway|billing|upstream|rda|process|nodejs)_[a-z0-9_]+\b/g)]
        .map(([name]) => name)
        .filter((name) => !served.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it("runs the built portal with its templates and its own copy of htmx", async () => {
    const page = await fetch(`${portalUrl}/signup`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script src="/static/htmx.min.js"');
    const htmx = await fetch(`${portalUrl}/static/htmx.min.js`);
    expect(htmx.status).toBe(200);
    expect(await htmx.text()).toContain("htmx");
  });

  it("answers 404 for /metrics on the gateway's public port", async () => {
    expect((await fetch(`${gatewayUrl}/metrics`)).status).toBe(404);
  });
});

/** Every span's parent is in the trace, except the root, whose parent is the caller's span. */
function expectOneTree(spans: readonly ReceivedSpan[], callerSpanId: string): void {
  const ids = new Set(spans.map((span) => span.spanId));
  const orphans = spans.filter(
    (span) => !ids.has(span.parentSpanId ?? "") && span.parentSpanId !== callerSpanId,
  );
  expect(orphans).toEqual([]);
  expect(spans.filter((span) => span.parentSpanId === callerSpanId)).toHaveLength(1);
}
