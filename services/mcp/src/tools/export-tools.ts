/**
 * The export tools, `start_export`, `get_export` and `list_exports` (docs/api.md#exports). Unlike the data tools
 * of OPERATIONS they manage a background job: a result is the export's state, quote and progress,
 * and once it is done the path of its file, which the agent's user downloads with the same key.
 * Never the data itself: an export can be far larger than any tool result. All three are free; the
 * export's pages are charged as it fetches them.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import {
  EXPORT_ID_PATTERN,
  EXPORT_LIMITS,
  exportBodySchema,
  exportJobSchema,
  exportManifestSchema,
  publicRoute,
} from "@rda/contracts";
import type { ExportJob, GatewayClient, GatewayResult } from "@rda/sdk";
import { z } from "zod";
import { count, cutSentence, fitToBudget } from "../results/presentation.ts";
import { gatewayErrorResult } from "../results/tool-errors.ts";
import { type ResourceTool, resourceListing } from "./resource-tool.ts";

// The API's own schemas: the tool takes what POST /v1/exports takes, and answers the export as the
// API does, without its query (the agent sent it) and with its file's link and manifest lifted up.
// The window's bounds are declared as the listing tools declare theirs (a number or a text), which
// every model vendor reads; the API's body leaves their forms to the listing schema.
const timeBound = (key: "after" | "before") =>
  z
    .union([z.number().int(), z.string()])
    .meta({ description: exportBodySchema.shape[key].meta()?.description });
const startInput = exportBodySchema.extend({ after: timeBound("after"), before: timeBound("before") });

const getInput = z.strictObject({
  id: z.string().regex(EXPORT_ID_PATTERN, { error: "must be an export id as start_export returned it" }),
});

const listInput = z.strictObject({});

const exportOutput = z.object({
  export: exportJobSchema.omit({ query: true, result: true }),
  file_url: z
    .string()
    .optional()
    .meta({ description: "Once done: the file's path on the API, downloaded with the same API key." }),
  manifest: exportManifestSchema.optional(),
});

function present(result: GatewayResult<ExportJob>): CallToolResult {
  if (!result.ok) return gatewayErrorResult(result.error);
  return presentExport(result.value);
}

/** An export as a tool result: its state, quote and progress, and once done its link and manifest. */
export function presentExport(job: ExportJob): CallToolResult {
  const { query: _query, result: done, ...lean } = job;
  const structured: Record<string, unknown> = { export: lean };
  const fileUrl = done?.file_url;
  if (fileUrl) structured.file_url = fileUrl;
  if (done?.manifest) structured.manifest = done.manifest;
  const { progress, quote } = job;
  const summary =
    job.state === "quoted"
      ? `Quoted export ${job.id}: about ${quote.estimated_pages} pages (${quote.estimated_rows} rows), at most ${quote.ceiling_credits} credits, about ${quote.eta_seconds} s. Nothing was charged; call start_export again with confirm: true to run it.`
      : job.state === "done"
        ? `Export ${job.id} is done: ${done?.manifest.rows ?? progress.rows_done} rows, ${progress.credits_spent} credits. Download ${fileUrl} with the same API key (it expires at ${job.expires_at}).`
        : `Export ${job.id} is ${job.state}: ${progress.percent}% of the window, ${progress.pages_done} pages, ${progress.credits_spent} credits so far${job.reason ? `; ${job.reason}` : ""}. Call get_export to follow it.`;
  return { content: [{ type: "text", text: summary }], structuredContent: structured };
}

export const startExport: ResourceTool = {
  name: "start_export",
  route: publicRoute("createExport"),
  input: startInput,
  listing: resourceListing(
    "start_export",
    "Start an export",
    `Free. Quotes (and with confirm: true starts) a background export of a community's or an author's posts or comments over a window of at most ${EXPORT_LIMITS.maxWindowDays} days, as one JSONL, CSV or Parquet file. The export then costs 1 credit per upstream page, never more than its ceiling. Returns the export's id, quote and state; follow it with get_export. Returns a link, never the data.`,
    startInput,
    exportOutput,
    { readOnly: false, idempotent: false },
  ),
  run: (client, args, call) =>
    client.createExport(args as unknown as Parameters<GatewayClient["createExport"]>[0], call).then(present),
};

export const getExport: ResourceTool = {
  name: "get_export",
  route: publicRoute("getExport"),
  input: getInput,
  listing: resourceListing(
    "get_export",
    "Follow an export",
    "Free. The export's state (queued, running, paused, done, failed, cancelled), progress, credits spent and, once done, the path of its file to download with the same API key. Returns a link, never the data.",
    getInput,
    exportOutput,
    { readOnly: false, idempotent: true },
  ),
  run: (client, args, call) => client.getExport(String(args.id), call).then(present),
};

const listOutput = z.object({
  exports: z.array(exportJobSchema.omit({ result: true })),
});

export const listExports: ResourceTool = {
  name: "list_exports",
  route: publicRoute("listExports"),
  input: listInput,
  listing: resourceListing(
    "list_exports",
    "List exports",
    "Free. The most recent exports of this API key, newest first: each one's id, query, state, progress and credits spent. Follow one with get_export, which gives a finished one's link. Returns no data.",
    listInput,
    listOutput,
    { readOnly: true, idempotent: true },
  ),
  run: async (client, _args, call, budgetBytes) => {
    const answer = await client.listExports(call);
    if (!answer.ok) return gatewayErrorResult(answer.error);
    const jobs = answer.value.jobs.map(({ result: _result, ...lean }) => lean);
    // Newest first, as many as fit the result budget; the older ones left out are counted.
    return fitToBudget(jobs.length, (shown) => listResult(jobs, shown, budgetBytes), budgetBytes);
  },
};

function listResult(
  jobs: readonly Omit<ExportJob, "result">[],
  shown: number,
  budgetBytes: number,
): CallToolResult {
  const listed = jobs.slice(0, shown);
  const lines = listed.map(
    (job) =>
      `${job.id}: ${job.state}, ${job.progress.percent}% of the window, ${count(job.progress.credits_spent, "credit")}`,
  );
  const cut = shown < jobs.length ? ` ${cutSentence(budgetBytes, shown, jobs.length, "exports")}` : "";
  const text = `${count(jobs.length, "export")} on this key, newest first. Nothing was charged.${cut}${lines.length > 0 ? `\n${lines.join("\n")}` : ""}`;
  return { content: [{ type: "text", text }], structuredContent: { exports: listed } };
}

export const EXPORT_TOOLS: readonly ResourceTool[] = [startExport, getExport, listExports];
