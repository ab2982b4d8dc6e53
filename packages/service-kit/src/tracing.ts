/**
 * OpenTelemetry tracing, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set. Off, the SDK is never
 * loaded and every seam below costs one branch on `tracingActive()`: no context manager (so no
 * AsyncLocalStorage), no spans, no extra NATS headers. On, spans go by OTLP/HTTP to
 * `<endpoint>/v1/traces`, and the W3C trace context crosses NATS in message headers, so one request
 * is one trace from the gateway through billing and the adapters to the upstream call.
 */
import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

export { type Context, type Span, SpanKind, SpanStatusCode };

let active = false;

/** True once `startTracing` registered an exporter; every seam checks this first. */
export function tracingActive(): boolean {
  return active;
}

export interface Tracing {
  readonly enabled: boolean;
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  readonly service: string;
  readonly version: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; undefined leaves tracing off. */
  readonly endpoint: string | undefined;
}

export async function startTracing(options: TracingOptions): Promise<Tracing> {
  if (!options.endpoint) return { enabled: false, shutdown: async () => {} };
  // Loaded here, so a service without an endpoint never loads the SDK at all.
  const [sdk, exporter, resources, hooks, core] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/core"),
  ]);
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({
      "service.name": options.service,
      "service.version": options.version,
    }),
    spanProcessors: [
      new sdk.BatchSpanProcessor(new exporter.OTLPTraceExporter({ url: tracesUrl(options.endpoint) }), {
        scheduledDelayMillis: 1_000,
      }),
    ],
  });
  context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  active = true;
  return {
    enabled: true,
    shutdown: async () => {
      await provider.shutdown();
      active = false;
    },
  };
}

/** The OTLP/HTTP convention: the traces path is appended to the base endpoint. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, "")}/v1/traces`;
}

const tracer = () => trace.getTracer("rda");

/* ---------- the request's own id, carried beside the span ---------- */

const REQUEST_ID = createContextKey("rda.request_id");

export function withRequestId(parent: Context, requestId: string | undefined): Context {
  return requestId === undefined ? parent : parent.setValue(REQUEST_ID, requestId);
}

/** What a log line of the current request carries; empty outside a traced request. */
export interface LogFields {
  readonly trace_id?: string;
  readonly span_id?: string;
  readonly request_id?: string;
}

export function activeLogFields(): LogFields {
  if (!active) return {};
  const current = context.active();
  const span = trace.getSpanContext(current);
  if (!span) return {};
  const requestId = current.getValue(REQUEST_ID) as string | undefined;
  return requestId === undefined
    ? { trace_id: span.traceId, span_id: span.spanId }
    : { trace_id: span.traceId, span_id: span.spanId, request_id: requestId };
}

/* ---------- spans ---------- */

/**
 * Runs `work` in a new span (a child of the active one) and ends it when `work` settles: a throw
 * marks it failed; `classify` may mark a returned value failed too (an outcome, not an exception).
 */
export async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
  work: (span: Span) => Promise<T>,
  classify?: (value: T) => string | undefined,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: options.kind, attributes: options.attributes }, parent);
  try {
    const value = await context.with(trace.setSpan(parent, span), () => work(span));
    const failure = classify?.(value);
    if (failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
    return value;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
    throw error;
  } finally {
    span.end();
  }
}

/** `inSpan` when tracing is on; otherwise just `work()`. For seams on hot paths. */
export function traced<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return active ? inSpan(name, { attributes }, () => work()) : work();
}

/* ---------- W3C trace context in headers (HTTP requests, NATS messages) ---------- */

/** Something headers can be read from: node's IncomingHttpHeaders or a NATS MsgHdrs. */
export type HeaderSource = { get(name: string): string | undefined } | Record<string, unknown>;

/** The W3C propagator only reads the two headers it knows, so `keys` is never needed. */
const getter = {
  keys: () => [],
  get: (carrier: HeaderSource, key: string) => {
    const value =
      typeof carrier.get === "function"
        ? (carrier.get as (name: string) => string | undefined)(key)
        : (carrier as Record<string, unknown>)[key];
    return typeof value === "string" && value !== "" ? value : undefined;
  },
};

/** The context a received message or request continues: its sender's span as the remote parent. */
export function extractContext(headers: HeaderSource | undefined, parent: Context = ROOT_CONTEXT): Context {
  return headers === undefined ? parent : propagation.extract(parent, headers, getter);
}

/** Writes the active context's `traceparent` (and `tracestate`) with `set`. */
export function injectContext(
  set: (name: string, value: string) => void,
  from: Context = context.active(),
): void {
  propagation.inject(from, undefined, { set: (_carrier, key, value) => set(key, value) });
}

export function activeRequestId(from: Context = context.active()): string | undefined {
  return from.getValue(REQUEST_ID) as string | undefined;
}

export { context as otelContext, trace as otelTrace };
