/**
 * The checks of `pnpm upstream:check` (docs/upstream.md#checking-the-upstream): which reading of each
 * uncertain upstream behaviour holds, with about 15 requests. Each finding is `pass` (the product's
 * assumption holds), `info` (a reading the product handles either way) or `fail` (an assumption the
 * product depends on does not hold).
 *
 * Every request first takes a turn in the product's one upstream budget (the adapters' shared pacer,
 * docs/operations.md#the-upstream-budget), as the operator's flow of its own in the interactive
 * class, and tells the pacer what the answer said about the upstream's window: the check is sent
 * from the same address as the adapters' requests, and counts against the same limit.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import {
  readWindowHeaders,
  type Turn,
  type UpstreamPacer,
  type WindowReport,
} from "../../packages/upstream-client/src/index.ts";

export type Verdict = "pass" | "info" | "fail";

export interface Finding {
  readonly topic: string;
  readonly verdict: Verdict;
  readonly reading: string;
}

export interface CheckOptions {
  readonly baseUrl: string;
  readonly userAgent: string;
  readonly appName: string;
  readonly subreddit: string;
  /** Pause between two requests: at most one request a second by default. */
  readonly intervalMs: number;
  /** The product's one upstream budget: every request takes a turn in it first. */
  readonly budget: UpstreamPacer;
  /** Told when a request waits for its turn longer than a moment, and why. */
  readonly onWait?: (reason: string) => void;
}

/**
 * The check's flow in the upstream budget: an operator's, apart from every customer account, so
 * fair queuing gives it one share among the accounts waiting and no more.
 */
export const CHECK_BUDGET_ACCOUNT = "operator:upstream-check";

/** The longest one request of the check waits for its turn before the check gives up. */
export const CHECK_TURN_WAIT_MS = 120_000;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly json: { data?: unknown; error?: unknown } | undefined;
  readonly text: string;
}

type Item = Record<string, unknown>;

/**
 * Sends the requests one at a time, `intervalMs` apart, each on a turn of the upstream budget, and
 * remembers every answer's headers.
 */
class PacedUpstream {
  readonly headerSets: Answer["headers"][] = [];
  #last = 0;
  sent = 0;
  /** Empty answers that a second ask filled: the upstream's transient empty pages. */
  recoveredEmpty = 0;

  constructor(private readonly options: CheckOptions) {}

  async get(
    path: string,
    query: Record<string, string | number>,
    userAgent: string | null = this.options.userAgent,
  ) {
    const wait = this.#last + this.options.intervalMs - Date.now();
    if (wait > 0) await sleep(wait);
    this.#last = Date.now();
    const url = new URL(path.replace(/^\//, ""), `${this.options.baseUrl.replace(/\/?$/, "/")}`);
    for (const [name, value] of Object.entries({ ...query, "meta-app": this.options.appName })) {
      url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: "application/json" };
    if (userAgent !== null) headers["user-agent"] = userAgent;
    const turn = await this.#turn();
    let window: WindowReport | undefined;
    let response: Awaited<ReturnType<typeof request>>;
    let text: string;
    try {
      this.sent += 1;
      response = await request(url, { headers, headersTimeout: 30_000, bodyTimeout: 30_000 });
      window = readWindowHeaders(response.headers, response.statusCode, Date.now());
      text = await response.body.text();
    } finally {
      // Always ended, and what the answer said of the upstream's window recorded for every replica.
      turn.finish(window);
    }
    let json: Answer["json"];
    try {
      json = JSON.parse(text) as Answer["json"];
    } catch {
      json = undefined;
    }
    const answer = { status: response.statusCode, headers: response.headers, json, text };
    this.headerSets.push(answer.headers);
    return answer;
  }

  /**
   * A turn in the upstream budget: waited for while the budget is busy or the upstream's window is
   * spent, up to CHECK_TURN_WAIT_MS; a budget that cannot be asked stops the check (nothing sent).
   */
  async #turn(): Promise<Extract<Turn, { granted: true }>> {
    const giveUpAt = Date.now() + CHECK_TURN_WAIT_MS;
    for (;;) {
      const turn = await this.options.budget.turn({
        waitUntilMs: giveUpAt,
        priority: "interactive",
        account: CHECK_BUDGET_ACCOUNT,
      });
      if (turn.granted) return turn;
      if (turn.reason === "pacer_unavailable")
        throw new Error("the upstream budget's shared state (REDIS_URL) cannot be read; nothing was sent");
      const why =
        turn.reason === "window_spent"
          ? "the upstream reported its window spent"
          : "the budget is taken by other requests";
      // A spent window is waited out; a busy budget was already waited for, and is asked again.
      const waitMs = turn.reason === "window_spent" ? turn.retryAfterSeconds * 1000 : 0;
      if (Date.now() + waitMs >= giveUpAt)
        throw new Error(`no turn in the upstream budget within ${CHECK_TURN_WAIT_MS / 1000} s: ${why}`);
      this.options.onWait?.(`${why}; waiting for a turn`);
      await sleep(waitMs);
    }
  }

  /**
   * The rows of a successful answer, or a description of why there are none. An empty answer is asked
   * once more, as the product does: the upstream sometimes answers a transient empty page.
   */
  async rows(path: string, query: Record<string, string | number>): Promise<Item[] | string> {
    const first = await this.#rowsOnce(path, query);
    if (typeof first === "string" || first.length > 0) return first;
    const again = await this.#rowsOnce(path, query);
    if (typeof again !== "string" && again.length > 0) this.recoveredEmpty += 1;
    return again;
  }

  async #rowsOnce(path: string, query: Record<string, string | number>): Promise<Item[] | string> {
    const answer = await this.get(path, query);
    if (answer.status !== 200 || !Array.isArray(answer.json?.data) || answer.json?.error !== undefined) {
      return describe(answer);
    }
    return answer.json.data as Item[];
  }
}

function describe(answer: Answer): string {
  if (answer.json === undefined) {
    const title = /<title[^>]*>([^<]{1,100})<\/title>/i.exec(answer.text)?.[1];
    return `HTTP ${answer.status}, not JSON${title ? ` ("${title.trim()}")` : ""}`;
  }
  return `HTTP ${answer.status}${answer.json.error ? `: ${String(answer.json.error).slice(0, 100)}` : ""}`;
}

const numeric = (value: unknown) =>
  typeof value === "string" && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;

function epochType(value: unknown): "integer" | "numeric string" | "other" {
  if (Number.isInteger(value)) return "integer";
  return typeof value === "string" && /^\d+(\.\d+)?$/.test(value) ? "numeric string" : "other";
}

export async function runChecks(options: CheckOptions): Promise<{ findings: Finding[]; requests: number }> {
  const upstream = new PacedUpstream(options);
  const findings: Finding[] = [];
  const add = (topic: string, verdict: Verdict, reading: string) =>
    findings.push({ topic, verdict, reading });
  const { subreddit } = options;

  // User-Agent: the product's is accepted; whether a request without one is refused is worth knowing.
  let withAgent = await upstream.get("/api/posts/search", { subreddit, limit: 25, sort: "desc" });
  if (Array.isArray(withAgent.json?.data) && withAgent.json.data.length === 0) {
    withAgent = await upstream.get("/api/posts/search", { subreddit, limit: 25, sort: "desc" });
  }
  const withoutAgent = await upstream.get("/api/posts/search", { subreddit, limit: 1, sort: "desc" }, null);
  const accepted = withAgent.status === 200 && Array.isArray(withAgent.json?.data);
  add(
    "user-agent",
    accepted ? "pass" : "fail",
    `with "${options.userAgent}": ${accepted ? "accepted" : describe(withAgent)}; without one: ${
      withoutAgent.status === 200 && withoutAgent.json ? "accepted" : `refused (${describe(withoutAgent)})`
    }`,
  );
  if (!accepted) return { findings, requests: upstream.sent };
  const page = ((withAgent.json?.data ?? []) as Item[]).map((row) => ({
    ...row,
    created_utc: numeric(row.created_utc),
  }));

  await checkTree(upstream, page, add);
  await checkBounds(upstream, subreddit, page, add);
  await checkOldEpochs(upstream, subreddit, add);
  await checkAuthorCase(upstream, subreddit, page, add);
  checkRateLimitHeaders(upstream.headerSets, add);
  add("empty pages", "info", `${upstream.recoveredEmpty} empty answers were filled by asking again`);
  return { findings, requests: upstream.sent };
}

type Add = (topic: string, verdict: Verdict, reading: string) => void;

async function checkTree(upstream: PacedUpstream, page: readonly Item[], add: Add) {
  const post = [...page].sort((a, b) => Number(b.num_comments ?? 0) - Number(a.num_comments ?? 0))[0];
  if (post === undefined || typeof post.id !== "string") {
    add("tree prefix", "fail", "no post to ask a tree of");
    return;
  }
  const query = { limit: 10, start_depth: 500, start_breadth: 500 };
  const prefixed = await upstream.rows("/api/comments/tree", { ...query, link_id: `t3_${post.id}` });
  const bare = await upstream.rows("/api/comments/tree", { ...query, link_id: post.id });
  if (typeof prefixed === "string") {
    add("tree prefix", "fail", `the tree of t3_${post.id} failed: ${prefixed}`);
    return;
  }
  const bareReading = typeof bare === "string" ? `failed (${bare})` : `${bare.length} nodes`;
  const reading = `t3_${post.id}: ${prefixed.length} nodes; bare ${post.id}: ${bareReading}`;
  if (prefixed.length === 0) {
    // A post without comments proves nothing either way.
    add(
      "tree prefix",
      Number(post.num_comments ?? 0) > 0 ? "fail" : "info",
      `${reading} (num_comments ${post.num_comments})`,
    );
    return;
  }
  const bareWorks = typeof bare !== "string" && bare.length > 0;
  add(
    "tree prefix",
    "pass",
    `${reading}: ${bareWorks ? "the prefix is optional" : "the tree needs t3_ (the product sends it)"}`,
  );
}

async function checkBounds(upstream: PacedUpstream, subreddit: string, page: readonly Item[], add: Add) {
  const row = page.find((item) => Number.isInteger(item.created_utc));
  if (row === undefined) {
    add("boundary seconds", "fail", "no row with a created_utc to test the bounds on");
    return;
  }
  const t = row.created_utc as number;
  const ask = (after: number, before: number) =>
    upstream.rows("/api/posts/search", { subreddit, after, before, limit: 100, sort: "asc" });
  const holds = (rows: Item[] | string) =>
    typeof rows !== "string" && rows.some((item) => item.id === row.id);
  const inside = await ask(t - 1, t + 1);
  const atAfter = await ask(t, t + 2);
  const atBefore = await ask(t - 2, t);
  if (!holds(inside)) {
    add("boundary seconds", "fail", `after=${t - 1}&before=${t + 1} does not return the post of second ${t}`);
    return;
  }
  add("after boundary", "info", `after=${t} ${holds(atAfter) ? "includes" : "excludes"} second ${t}`);
  add("before boundary", "info", `before=${t} ${holds(atBefore) ? "includes" : "excludes"} second ${t}`);
}

async function checkOldEpochs(upstream: PacedUpstream, subreddit: string, add: Add) {
  for (const [kind, path] of [
    ["post", "/api/posts/search"],
    ["comment", "/api/comments/search"],
  ] as const) {
    const rows = await upstream.rows(path, { subreddit, limit: 1, sort: "asc" });
    if (typeof rows === "string" || rows.length === 0) {
      add(`epoch type, oldest ${kind}`, "fail", typeof rows === "string" ? rows : "no item found");
      continue;
    }
    const oldest = rows[0]!;
    const type = epochType(oldest.created_utc);
    const when = new Date(Number(numeric(oldest.created_utc)) * 1000).toISOString().slice(0, 10);
    add(
      `epoch type, oldest ${kind}`,
      type === "other" ? "fail" : "pass",
      `created_utc of ${oldest.id} (${when}) is ${type === "other" ? JSON.stringify(oldest.created_utc) : type === "integer" ? "an integer" : "a numeric string"}`,
    );
  }
}

async function checkAuthorCase(upstream: PacedUpstream, subreddit: string, page: readonly Item[], add: Add) {
  const author = page
    .map((row) => row.author)
    .find(
      (name): name is string =>
        typeof name === "string" && name !== "[deleted]" && name.toLowerCase() !== name.toUpperCase(),
    );
  if (author === undefined) {
    add("author case", "info", "no author name to test");
    return;
  }
  const swapped = author === author.toLowerCase() ? author.toUpperCase() : author.toLowerCase();
  const exact = await upstream.rows("/api/posts/search", { author, limit: 5, sort: "desc" });
  const other = await upstream.rows("/api/posts/search", { author: swapped, limit: 5, sort: "desc" });
  const count = (rows: Item[] | string) => (typeof rows === "string" ? rows : `${rows.length} posts`);
  const ignoresCase =
    typeof other !== "string" &&
    typeof exact !== "string" &&
    other.length === exact.length &&
    exact.length > 0;
  add(
    "author case",
    typeof exact === "string" ? "fail" : "info",
    `${author}: ${count(exact)}; ${swapped}: ${count(other)}: ${ignoresCase ? "matching ignores case" : "matching is case-sensitive"} (subreddit ${subreddit})`,
  );
}

const RATE_HEADERS = ["x-ratelimit-remaining", "x-ratelimit-reset", "x-ratelimit-reset-at"] as const;

/** Names the form of a rate-limit value: a count, seconds left, epoch seconds or epoch milliseconds. */
export function rateHeaderForm(name: string, value: string): string | undefined {
  if (!/^\d+(\.\d+)?$/.test(value.trim())) return undefined;
  const number = Number(value);
  if (name === "x-ratelimit-remaining") return "a count of requests left";
  if (number <= 86_400) return "seconds left";
  if (number >= 1e9 && number < 1e11) return "epoch seconds";
  if (number >= 1e12 && number < 1e14) return "epoch milliseconds";
  return undefined;
}

function checkRateLimitHeaders(headerSets: readonly Answer["headers"][], add: Add) {
  for (const name of RATE_HEADERS) {
    const values = headerSets
      .map((headers) => headers[name])
      .filter((value) => value !== undefined)
      .map(String);
    if (values.length === 0) {
      add(name, "info", "not sent");
      continue;
    }
    const forms = new Set(values.map((value) => rateHeaderForm(name, value)));
    const sample = values[values.length - 1];
    add(
      name,
      forms.has(undefined) ? "fail" : "pass",
      `${[...forms].map((form) => form ?? "an unknown form").join(", ")} (last: ${sample})`,
    );
  }
}
