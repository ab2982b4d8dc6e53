/**
 * The exports service's HTTP listener: `GET /files/{id}` with a signed link (download-links.ts)
 * streams the file from the object store; `/livez` and `/readyz` for the orchestrator. It is an
 * internal port: the public download is the gateway's authenticated `GET /v1/exports/{id}/file`.
 */
import { createServer, type Server } from "node:http";
import { EXPORT_ID_PATTERN } from "@rda/contracts";
import type { Logger } from "@rda/service-kit";
import type { DownloadLinks } from "./download-links.ts";
import type { JobStore } from "./job-store.ts";
import type { ObjectStore } from "./object-store.ts";

export interface DownloadServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startDownloadServer(
  deps: { links: DownloadLinks; jobs: JobStore; objects: ObjectStore; logger: Logger; ready: () => boolean },
  listen: { port: number; host: string },
): Promise<DownloadServer> {
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://internal");
    const answer = (status: number, error: string) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error }));
    // Health answers say `status`, as every service's do; only refusals are `{error}`.
    const health = (status: number, state: string) =>
      response
        .writeHead(status, { "content-type": "application/json" })
        .end(JSON.stringify({ status: state }));
    if (url.pathname === "/livez") return health(200, "ok");
    if (url.pathname === "/readyz") return deps.ready() ? health(200, "ready") : health(503, "not ready");
    const match = /^\/files\/([^/]+)$/.exec(url.pathname);
    if (request.method !== "GET" || match === null) return answer(404, "not found");
    const id = match[1] as string;
    const signed =
      EXPORT_ID_PATTERN.test(id) &&
      deps.links.verify(id, url.searchParams.get("expires") ?? "", url.searchParams.get("sig") ?? "");
    if (!signed) return answer(403, "this link is invalid or has expired");
    void (async () => {
      const job = await deps.jobs.get(id);
      const stream = job?.file ? await deps.objects.open(job.file.path) : undefined;
      if (!job?.file || stream === undefined) return answer(404, "no such export file");
      response.writeHead(200, {
        "content-type": job.file.content_type,
        "content-length": String(job.file.bytes),
        "content-disposition": `attachment; filename="${job.file.filename}"`,
      });
      stream.pipe(response);
    })().catch((error: unknown) => {
      deps.logger.error({ export_id: id, err: String(error) }, "export download failed");
      if (!response.headersSent) answer(500, "internal error");
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : listen.port;
  return {
    url: `http://${listen.host}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
