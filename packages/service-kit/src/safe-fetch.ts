/**
 * Outgoing requests to addresses a customer or a stranger chose, under the one rule of
 * outbound-guard.ts (public addresses only, after DNS; https only), and:
 *
 * - redirects are never followed (the answer is the 3xx itself);
 * - one deadline for the whole exchange, and a cap on the body's size.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { checkOutgoingUrl, OutgoingRequestRefused, publicOnlyLookup } from "./outbound-guard.ts";

export interface SafeFetchOptions {
  readonly method?: "GET" | "POST";
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** For the whole exchange, connection to last byte; default 5 s. */
  readonly timeoutMs?: number;
  /** A larger body fails the fetch; default 256 KiB. */
  readonly maxBytes?: number;
  /** Development and tests only: plain http and any address. */
  readonly allowPrivateAddresses?: boolean;
  /** Local development only: also plain http to 127.0.0.1, ::1 and localhost, nothing else. */
  readonly allowLoopback?: boolean;
  readonly signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_BYTES = 256 * 1_024;

/** Fetches `target` under the rules above; the answer as a standard Response (its body in memory). */
export async function safeFetch(target: string | URL, options: SafeFetchOptions = {}): Promise<Response> {
  const allowPrivate = options.allowPrivateAddresses === true;
  const url = checkOutgoingUrl(target, {
    allowPrivateAddresses: allowPrivate,
    allowLoopback: options.allowLoopback === true,
  });
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const deadline = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const request = send(url, {
      method: options.method ?? "GET",
      headers: options.headers,
      signal,
      agent: false,
      ...(allowPrivate
        ? {}
        : { lookup: publicOnlyLookup({ allowLoopback: options.allowLoopback === true }) }),
    });
    request.once("error", (error) =>
      reject(
        error instanceof OutgoingRequestRefused
          ? error
          : new OutgoingRequestRefused(
              signal.aborted ? "the request did not finish in time" : `the request failed: ${error.message}`,
            ),
      ),
    );
    request.once("response", (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let received = 0;
      response.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) {
          // Settled here: whatever the socket does next, a cut-off body is never an answer.
          reject(new OutgoingRequestRefused(`the answer is larger than ${maxBytes} bytes`));
          request.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.once("error", (error) => reject(new OutgoingRequestRefused(error.message)));
      response.once("end", () => {
        const status = response.statusCode ?? 0;
        if (status < 200 || status > 599) {
          reject(new OutgoingRequestRefused(`unexpected status ${status}`));
          return;
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        const empty = status === 204 || status === 304;
        resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
      });
    });
    request.end(options.body);
  });
}
