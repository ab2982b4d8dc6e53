/**
 * How the client presents itself and what it does when the upstream's front blocks it
 * (docs/upstream.md#errors-and-busy-answers): a User-Agent and `meta-app` on every request, and a 403
 * block page answered once, never retried, counted and logged with what was seen.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  createUpstreamClient,
  DEFAULT_APP_NAME,
  DEFAULT_USER_AGENT,
  type UpstreamObserver,
} from "../src/index.ts";
import { json, type ScriptedServer, startScriptedServer } from "./scripted-server.ts";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const BLOCK_PAGE = [
  "<!DOCTYPE html>",
  "<html><head><title>Attention Required! | Cloudflare</title></head>",
  "<body><h1>Sorry, you have been blocked</h1></body></html>",
].join("\n");

function recordingObserver() {
  const blocked: string[] = [];
  const observer: UpstreamObserver = {
    attempt: () => {},
    call: () => {},
    coalesced: () => {},
    blocked: (operation) => blocked.push(operation),
  };
  return { observer, blocked };
}

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) =>
    lines.push({ level, fields, message });
  const logger = { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") };
  return { logger: logger as never, lines };
}

describe("upstream client identity", () => {
  it("sends the configured User-Agent and meta-app on every request", async () => {
    const agents: (string | undefined)[] = [];
    server = await startScriptedServer((request, response) => {
      agents.push(request.headers["user-agent"]);
      json(response, 200, { data: [] });
    });
    const client = createUpstreamClient({ baseUrl: server.url, userAgent: "acme-data/2 (ops@acme.test)" });
    await client.get("/api/posts/search", { subreddit: "a", limit: 1 });
    await client.get("/api/comments/tree", { link_id: "t3_abc" });
    await client.close();
    expect(agents).toEqual(["acme-data/2 (ops@acme.test)", "acme-data/2 (ops@acme.test)"]);
    for (const path of server.paths)
      expect(new URL(path, server.url).searchParams.get("meta-app")).toBe(DEFAULT_APP_NAME);
  });

  it("sends the product's default User-Agent when none is configured", async () => {
    const agents: (string | undefined)[] = [];
    server = await startScriptedServer((request, response) => {
      agents.push(request.headers["user-agent"]);
      json(response, 200, { data: [] });
    });
    const client = createUpstreamClient({ baseUrl: server.url });
    await client.get("/api/posts/search", { limit: 1 });
    await client.close();
    expect(agents).toEqual([DEFAULT_USER_AGENT]);
    expect(DEFAULT_USER_AGENT).toMatch(/^reddit-data-api\//);
  });

  it("answers a 403 block page after one attempt, reports it blocked, and logs one line quoting it", async () => {
    server = await startScriptedServer((_request, response) => {
      response.writeHead(403, { "content-type": "text/html; charset=UTF-8" }).end(BLOCK_PAGE);
    });
    const { observer, blocked } = recordingObserver();
    const { logger, lines } = recordingLogger();
    const client = createUpstreamClient({ baseUrl: server.url, observer, logger, maxRetries: 3 });
    const result = await client.get("/api/posts/search", { limit: 1 }, { operation: "listPosts" });
    await client.close();
    expect(result).toMatchObject({ outcome: "unavailable", blocked: true, attempts: 1, retries: 0 });
    expect(server.paths).toHaveLength(1);
    expect(blocked).toEqual(["listPosts"]);
    const errors = lines.filter((line) => line.level === "error" || line.level === "warn");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.level).toBe("error");
    expect(String(errors[0]!.fields.seen)).toContain(
      'HTTP 403 with an HTML page: "Attention Required! | Cloudflare"',
    );
  });

  it("still retries a Cloudflare 52x page, which means trouble at the origin", async () => {
    server = await startScriptedServer((_request, response, index) => {
      if (index === 0) response.writeHead(522, { "content-type": "text/html" }).end("<html>timed out</html>");
      else json(response, 200, { data: [] });
    });
    const client = createUpstreamClient({ baseUrl: server.url, backoffBaseMs: 5, backoffCapMs: 10 });
    const result = await client.get("/api/posts/search", { limit: 1 });
    await client.close();
    expect(result).toMatchObject({ outcome: "ok", attempts: 2 });
  });
});
