/**
 * The walk of one request, measured (docs/architecture.md#reading-one-request-get-v1postssubredditx):
 * `GET /v1/posts?subreddit=…` on the in-process stack, with its key already known to the gateway,
 * once as a cache miss and once as a cache hit. V8's precise coverage counts the product files
 * (`services/*\/src`, `packages/*\/src`) whose code ran for it, and a subscription to the stack's
 * subjects counts its NATS round trips (each request on a service subject is one; replies travel
 * on inboxes), the settlement included. Code that runs on its own is not the request's: after each
 * walk the stack is watched idle for as long again, and a function that ran then too is left out
 * (billing's sweep, a flush timer: on a busy machine a walk outlasts their period). Each walk is
 * taken three times on fresh windows and only what all three share is counted. The stack's own
 * sweep is set far apart, as the walk needs none. The test fails when the path grows past the
 * bounds below.
 */
import { Session } from "node:inspector/promises";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

const BOUNDS = {
  miss: { files: 45, roundTrips: 3 },
  hit: { files: 35, roundTrips: 2 },
} as const;
const REPETITIONS = 3;
/** A product source file, relative to the repository: `services/gateway/src/…`, `packages/contracts/src/…`. */
const PRODUCT_FILE = /(?:^|\/)((?:services|packages)\/[^/]+\/src\/[^?]+\.ts)(?:\?.*)?$/;

/**
 * Not the product's path: the upstream simulator stands for Reddit's archive, and `testing` holds
 * the test helpers (this file's own waiting among them).
 */
const NOT_ON_THE_PATH = /^services\/upstream-sim\/|\/src\/testing\//;
/**
 * The test runner's module system reads every imported name through an accessor of the exporting
 * module, `() => { try { return name } catch {} }` (a re-export: `return imported.name`); Node's own
 * modules bind imports without running any code of the exporter. Such an accessor is not the file's
 * code running for the request.
 */
const EXPORT_ACCESSOR = /^\(\) => \{ try \{ return [\w$.]+ \} catch \{\} \}$/;

const sources = new Map<string, string>();
async function sourceOf(scriptId: string): Promise<string> {
  let source = sources.get(scriptId);
  if (source === undefined) {
    source = (await session.post("Debugger.getScriptSource", { scriptId })).scriptSource;
    sources.set(scriptId, source);
  }
  return source;
}

let stack: Stack;
let session: Session;
let subscription: { unsubscribe(): void } | undefined;
let seen: { subject: string; data: string }[] = [];

beforeAll(async () => {
  session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Debugger.enable"); // for the sources of the scripts that ran
  // Before the stack starts, so every product function it compiles is counted.
  await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
  stack = await startStack({ responseCache: {}, pendingSweepMs: 600_000 });
  subscription = stack.nats.subscribe(`${stack.namespace}.>`, {
    callback: (_error, message) => {
      seen.push({ subject: message.subject, data: message.string() });
    },
  });
  await stack.nats.flush();
}, 120_000);
afterAll(async () => {
  subscription?.unsubscribe();
  await session?.post("Profiler.stopPreciseCoverage").catch(() => undefined);
  session?.disconnect();
  await stack?.stop();
});

interface Walk {
  readonly files: ReadonlySet<string>;
  readonly subjects: readonly string[];
}

/** One request: the product files that ran and the service subjects asked, until its debit was settled. */
async function walk(path: string, key: string): Promise<Walk> {
  // A walk measures a served request. Under precise coverage on a loaded machine the in-process
  // stack is many times slower, and a miss may end 502 (refunded); such a walk is taken again, once,
  // and said. What callers get from a failing adapter is tested elsewhere.
  let startedMs = 0;
  for (let attempt = 1; ; attempt++) {
    await session.post("Profiler.takePreciseCoverage"); // counts from here
    seen = [];
    startedMs = performance.now();
    const failed = await answered(path, key, attempt === 2);
    if (failed === undefined) break;
    console.warn(`request walk: ${path} answered ${failed}; taken again`);
  }
  const walked = await productFunctionsRun();
  // The same stretch again with no request: what runs then runs on its own.
  const idleMs = performance.now() - startedMs;
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  const onItsOwn = await productFunctionsRun();
  const files = new Set<string>();
  for (const [fn, file] of walked) if (!onItsOwn.has(fn)) files.add(file);
  const prefix = `${stack.namespace}.`;
  return { files, subjects: seen.map(({ subject }) => subject.slice(prefix.length)) };
}

/**
 * The product functions that ran since the last call, each named by its script and place, with its
 * file: the runner's export accessors left out.
 */
async function productFunctionsRun(): Promise<Map<string, string>> {
  const { result } = await session.post("Profiler.takePreciseCoverage");
  const functions = new Map<string, string>();
  for (const script of result) {
    const file = PRODUCT_FILE.exec(script.url)?.[1];
    if (file === undefined || NOT_ON_THE_PATH.test(file)) continue;
    const ran = script.functions.filter((fn) => (fn.ranges[0]?.count ?? 0) > 0);
    if (ran.length === 0) continue;
    const source = await sourceOf(script.scriptId);
    for (const fn of ran) {
      const { startOffset, endOffset } = fn.ranges[0]!;
      if (!EXPORT_ACCESSOR.test(source.slice(startOffset, endOffset)))
        functions.set(`${script.url}:${startOffset}`, file);
    }
  }
  return functions;
}

/**
 * One request answered 200, and its debit's settlement sent (batched, after the answer is written);
 * else, unless it must succeed, the 5xx it got.
 */
async function answered(path: string, key: string, mustSucceed = true): Promise<string | undefined> {
  const answer = await getJson(`${stack.gatewayUrl}${path}`, withKey(key));
  if (!mustSucceed && answer.status >= 500) return `${answer.status} ${JSON.stringify(answer.body)}`;
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const requestId = answer.headers.get("x-request-id")!;
  const settle = stack.subjects.billing.settle;
  await waitFor(
    () => seen.some(({ subject, data }) => subject === settle && data.includes(requestId)),
    "the debit settled",
  );
  await stack.nats.flush();
  return undefined;
}

/** What every walk shared: the files all of them ran, the fewest round trips any made. */
function shared(walks: readonly Walk[]): { files: string[]; roundTrips: number; subjects: string[] } {
  const files = [...walks[0]!.files].filter((file) => walks.every((one) => one.files.has(file))).sort();
  const fewest = walks.reduce((a, b) => (b.subjects.length < a.subjects.length ? b : a));
  return { files, roundTrips: fewest.subjects.length, subjects: [...fewest.subjects] };
}

describe("the walk of GET /v1/posts?subreddit=…, measured at run time", () => {
  let miss: ReturnType<typeof shared>;
  let hit: ReturnType<typeof shared>;

  beforeAll(async () => {
    const { key } = await stack.createKey({ credits: 100 });
    const subreddits = stack.simulator.probe.subredditNames();
    // The key becomes known to the gateway, and every module on the path is loaded and warm.
    await answered(`/v1/posts?subreddit=${subreddits.at(-1)}`, key);
    const misses: Walk[] = [];
    const hits: Walk[] = [];
    for (const subreddit of subreddits.slice(0, REPETITIONS)) {
      misses.push(await walk(`/v1/posts?subreddit=${subreddit}`, key));
      hits.push(await walk(`/v1/posts?subreddit=${subreddit}`, key));
    }
    miss = shared(misses);
    hit = shared(hits);
    // The figures and files docs/architecture.md states, for whoever updates them.
    for (const [name, path] of [
      ["miss", miss],
      ["hit", hit],
    ] as const)
      console.info(
        `request walk, ${name}: ${path.files.length} files, ${path.roundTrips} round trips (${path.subjects.join(", ")})\n  ${path.files.join("\n  ")}`,
      );
  }, 120_000);

  it(`a cache miss runs at most ${BOUNDS.miss.files} product files in at most ${BOUNDS.miss.roundTrips} NATS round trips: admission, the adapter, the settlement`, () => {
    expect(miss.subjects).toContain("billing.admit");
    expect(miss.subjects).toContain("adapter.posts.list");
    expect(miss.files.length).toBeLessThanOrEqual(BOUNDS.miss.files);
    expect(miss.roundTrips).toBeLessThanOrEqual(BOUNDS.miss.roundTrips);
  });

  it(`a cache hit runs at most ${BOUNDS.hit.files} product files in at most ${BOUNDS.hit.roundTrips} NATS round trips, none to an adapter`, () => {
    expect(hit.subjects).toContain("billing.admit");
    expect(hit.subjects.filter((subject) => subject.startsWith("adapter."))).toEqual([]);
    expect(hit.files.length).toBeLessThanOrEqual(BOUNDS.hit.files);
    expect(hit.roundTrips).toBeLessThanOrEqual(BOUNDS.hit.roundTrips);
  });
});
