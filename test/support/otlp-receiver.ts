/**
 * A small OTLP/HTTP trace receiver for tests: a plain node http server taking `POST /v1/traces` in
 * OTLP JSON (what @opentelemetry/exporter-trace-otlp-http sends) and keeping every span with the
 * name of the service that exported it.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: number;
}

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  spans(): readonly ReceivedSpan[];
  close(): Promise<void>;
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      received.push(...decode(JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport));
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function decode(body: OtlpExport): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const attributes = resourceSpans.resource?.attributes ?? [];
    const service = attributes.find((a) => a.key === "service.name")?.value.stringValue ?? "unknown";
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
      })),
    );
  });
}
