/**
 * Stage (v): one upstream page serves every narrower ask. Settled windows of several communities
 * (each ending more than 36 hours ago, so its page may be served for the settled bound) are asked
 * in every variant a customer might send: four `limit`s, with and without a `fields` projection,
 * with and without a `q` filter, each variant several times, in a shuffled order. The simulator's
 * own counter gives the upstream calls. The physical limit is one upstream call per distinct window
 * per freshness period (the run is far shorter than the settled bound), so answers per upstream call
 * is compared with answers per distinct window.
 */

const LIMITS = [10, 25, 50, 100] as const;
const FIELDS = [undefined, "id,title,created_utc"] as const;
const PHRASES = [undefined, "the"] as const;
const REPEATS = Number(process.env.BENCH_VARIANT_REPEATS ?? 3);
const CONCURRENCY = 8;
/** Seconds: an item older than this is settled (packages/upstream-client/src/cache/freshness.ts). */
const SETTLING_WINDOW_S = 36 * 3600;

export interface VariantMixFigures {
  windows: number;
  variants_per_window: number;
  answers: number;
  answers_by_status: Record<string, number>;
  upstream_calls: number;
  answers_per_upstream_call: number;
  /** One upstream call per distinct window: answers per distinct window. */
  physical_limit_answers_per_call: number;
}

export async function runVariantMix(options: {
  gatewayUrl: string;
  simUrl: string;
  headers: Record<string, string>;
}): Promise<VariantMixFigures> {
  const windows = await settledWindows(options.simUrl);
  const paths = shuffled(
    windows.flatMap((window) =>
      variantsOf(window).flatMap((path) => Array.from({ length: REPEATS }, () => path)),
    ),
  );
  const before = await simTotal(options.simUrl);
  const statuses: Record<string, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < paths.length) {
        const path = paths[next++]!;
        const response = await fetch(`${options.gatewayUrl}${path}`, { headers: options.headers });
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      }
    }),
  );
  const calls = (await simTotal(options.simUrl)) - before;
  return {
    windows: windows.length,
    variants_per_window: LIMITS.length * FIELDS.length * PHRASES.length,
    answers: paths.length,
    answers_by_status: statuses,
    upstream_calls: calls,
    answers_per_upstream_call: Math.round((paths.length / Math.max(calls, 1)) * 10) / 10,
    physical_limit_answers_per_call: Math.round((paths.length / windows.length) * 10) / 10,
  };
}

function variantsOf(window: string): string[] {
  return LIMITS.flatMap((limit) =>
    FIELDS.flatMap((fields) =>
      PHRASES.map((q) => {
        const extra = `${fields ? `&fields=${fields}` : ""}${q ? `&q=${q}` : ""}`;
        return `/v1/posts?${window}&limit=${limit}${extra}`;
      }),
    ),
  );
}

/** `subreddit=…&before=…` of windows whose rows are all settled, found in the simulator's corpus. */
async function settledWindows(simUrl: string): Promise<string[]> {
  const settledBefore = Math.floor(Date.now() / 1000) - SETTLING_WINDOW_S - 3600;
  const listed = await getJson(`${simUrl}/api/subreddits/search?limit=5&sort=desc&sort_type=subscribers`);
  const windows: string[] = [];
  for (const { display_name: name } of listed as { display_name: string }[]) {
    const rows = (await getJson(
      `${simUrl}/api/posts/search?subreddit=${name}&before=${settledBefore}&limit=100&sort=desc`,
    )) as { created_utc: number }[];
    for (const index of [0, 40, 80]) {
      const row = rows[index];
      if (row) windows.push(`subreddit=${name}&before=${Number(row.created_utc) + 1}`);
    }
  }
  if (windows.length === 0) throw new Error("the simulator holds no settled posts");
  return windows;
}

async function getJson(url: string): Promise<unknown> {
  return ((await (await fetch(url)).json()) as { data: unknown }).data;
}

async function simTotal(simUrl: string): Promise<number> {
  return ((await (await fetch(`${simUrl}/__sim/stats`)).json()) as { total: number }).total;
}

function shuffled<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
