/**
 * The `reddit://` and `export://` resource templates (docs/api.md#mcp-endpoint-resources). A read is
 * the tool calls behind it, made with the caller's key, so it is billed exactly like those endpoints
 * (and free where they are free), limited by the same rate limit and cut to the same result budget,
 * with `next` saying which tool call continues it. The contents are the tools' structured results
 * as JSON.
 */
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Server,
  UriTemplate,
  type Variables,
} from "@modelcontextprotocol/server";
import { declaresApps, readView, viewListing } from "./apps.ts";
import { ERROR_META_KEY } from "./results/tool-errors.ts";

/** Runs one of the server's tools for the reading caller. */
export type RunTool = (
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<CallToolResult | undefined>;

interface ToolRead {
  /** Where the result goes in the resource's JSON. */
  readonly part: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** What of the tool's structured result the resource keeps; all of it by default. */
  readonly keep?: (structured: Record<string, unknown>) => unknown;
}

interface ResourceTemplateDefinition {
  readonly name: string;
  readonly title: string;
  readonly uriTemplate: string;
  readonly description: string;
  /** The tool calls a read makes, from the URI's variables. */
  readonly reads: (variables: Record<string, string | undefined>) => readonly ToolRead[];
}

const JSON_TYPE = "application/json";
/** A prefix search returns the exact name among the first few (the longer names start with it). */
const ABOUT_SEARCH_LIMIT = 10;

export const RESOURCE_TEMPLATES: readonly ResourceTemplateDefinition[] = [
  {
    name: "subreddit",
    title: "A community: about and rules",
    uriTemplate: "reddit://r/{name}",
    description:
      "A community's entry (subscribers, description, NSFW) and its rules. 2 credits: one search_subreddits call and one get_subreddit_rules call.",
    reads: ({ name }) => [
      {
        part: "about",
        tool: "search_subreddits",
        args: { q: name, limit: ABOUT_SEARCH_LIMIT },
        keep: (structured) => exactCommunity(structured, name),
      },
      { part: "rules", tool: "get_subreddit_rules", args: { name } },
    ],
  },
  {
    name: "subreddit_posts",
    title: "A community's posts",
    uriTemplate: "reddit://r/{name}/posts{?after,before}",
    description:
      "A community's posts, newest first, optionally within after/before (epoch seconds, ISO dates or 30d). 1 credit, as search_posts.",
    reads: ({ name, after, before }) => [
      { part: "posts", tool: "search_posts", args: definedOnly({ subreddit: name, after, before }) },
    ],
  },
  {
    name: "thread",
    title: "A post's thread",
    uriTemplate: "reddit://post/{id}",
    description: "A post's nested comment thread. 1 credit, as get_comment_tree.",
    reads: ({ id }) => [{ part: "thread", tool: "get_comment_tree", args: { post_id: id } }],
  },
  {
    name: "user",
    title: "A user's profile",
    uriTemplate: "reddit://u/{name}",
    description: "A user's aggregates by exact username. 1 credit, as get_user_profile.",
    reads: ({ name }) => [{ part: "profile", tool: "get_user_profile", args: { name } }],
  },
  {
    name: "export",
    title: "An export",
    uriTemplate: "export://{id}",
    description: "An export's state, progress and, once done, its file's link. Free, as get_export.",
    reads: ({ id }) => [{ part: "export", tool: "get_export", args: { id } }],
  },
];

/**
 * Each template's path matched by the SDK's UriTemplate, and its `{?…}` variables read from the query
 * string apart: a form-style query is optional, so `reddit://r/x/posts` matches as well as
 * `reddit://r/x/posts?after=30d`.
 */
const MATCHERS = RESOURCE_TEMPLATES.map((definition) => {
  const [path = "", query] = definition.uriTemplate.split("{?");
  return {
    definition,
    path: new UriTemplate(path),
    queryNames: query ? query.replace("}", "").split(",") : [],
  };
});

export function registerResources(server: Server, runTool: RunTool): void {
  // The only fixed resources are the Apps views, listed for a client that declares the extension.
  server.setRequestHandler("resources/list", (_request, context) => ({
    resources: declaresApps(context.mcpReq.envelope) ? viewListing() : [],
  }));
  server.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: RESOURCE_TEMPLATES.map(({ name, title, uriTemplate, description }) => ({
      name,
      title,
      uriTemplate,
      description,
      mimeType: JSON_TYPE,
    })),
  }));
  server.setRequestHandler(
    "resources/read",
    (request, context) =>
      readView(request.params.uri) ?? readResource(request.params.uri, runTool, context.mcpReq.signal),
  );
}

async function readResource(uri: string, runTool: RunTool, signal: AbortSignal): Promise<ReadResourceResult> {
  const found = matchTemplate(uri);
  if (!found) {
    const templates = RESOURCE_TEMPLATES.map((definition) => definition.uriTemplate).join(", ");
    throw new ProtocolError(
      ProtocolErrorCode.ResourceNotFound,
      `No resource at ${uri}; the templates are ${templates}`,
    );
  }
  const body: Record<string, unknown> = {};
  let creditsSpent = 0;
  for (const read of found.definition.reads(found.variables)) {
    const result = await runTool(read.tool, read.args, signal);
    if (!result || result.isError) throw readFailure(uri, result, creditsSpent);
    creditsSpent += creditsUsed(result);
    const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
    body[read.part] = read.keep ? read.keep(structured) : structured;
  }
  return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(body) }] };
}

function matchTemplate(uri: string) {
  const [withoutQuery = "", queryString = ""] = uri.split("?", 2);
  const query = new URLSearchParams(queryString);
  for (const { definition, path, queryNames } of MATCHERS) {
    const matched = path.match(withoutQuery);
    if (!matched) continue;
    const variables = singleValues(matched);
    for (const name of queryNames) variables[name] = query.get(name) || undefined;
    return { definition, variables };
  }
  return undefined;
}

/** A failed read answers the tool's own sentence (what was charged, what to do) as the error. */
function readFailure(uri: string, result: CallToolResult | undefined, creditsSpent: number): ProtocolError {
  const text = result?.content?.find((block) => block.type === "text");
  const reason = text && "text" in text ? text.text : "the read failed";
  const earlier =
    creditsSpent > 0
      ? ` The part of this read that succeeded before it was charged ${creditsSpent} credit(s).`
      : "";
  // The failed call's code, wait and request id, as its tool result carries them.
  const meta = result?._meta?.[ERROR_META_KEY];
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Reading ${uri}: ${reason}${earlier}`, meta);
}

function creditsUsed(result: CallToolResult): number {
  const service = (result.structuredContent as { _service?: { credits_used?: unknown } } | undefined)
    ?._service;
  return typeof service?.credits_used === "number" ? service.credits_used : 0;
}

function singleValues(variables: Variables): Record<string, string | undefined> {
  const single: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(variables)) {
    const first = Array.isArray(value) ? value[0] : value;
    single[name] = first === undefined || first === "" ? undefined : decodeURIComponent(first);
  }
  return single;
}

/** The community of exactly this name from a prefix search (null when there is none), and what it cost. */
function exactCommunity(structured: Record<string, unknown>, name: string | undefined) {
  const found = ((structured.data ?? []) as { name?: string }[]).find(
    (community) => community.name?.toLowerCase() === name?.replace(/^r\//, "").toLowerCase(),
  );
  return { community: found ?? null, _service: structured._service };
}

function definedOnly(args: Record<string, string | undefined>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
}
