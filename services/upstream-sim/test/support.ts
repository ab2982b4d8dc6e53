/**
 * Shared test setup: a small corpus laid around a fixed anchor, served over real
 * HTTP on port 0, with a clock the test controls.
 */
import { generateCorpus } from "../src/corpus/corpus.ts";
import type { Corpus } from "../src/corpus/types.ts";
import type { RunningSimulator } from "../src/index.ts";
import { startSimulator } from "../src/index.ts";
import type { SimProfile, SimQuirks } from "../src/profile.ts";

/** 2026-09-21T12:53:20Z: fixed, so every run sees the same data. */
export const ANCHOR = 1_790_000_000;
export const HOUR = 3600;

export class TestClock {
  seconds: number;

  constructor(seconds: number) {
    this.seconds = seconds;
  }

  readonly now = (): number => this.seconds * 1000;
}

export interface TestSim extends RunningSimulator {
  readonly clock: TestClock;
  get(path: string): Promise<Answer>;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed JSON body, or undefined when it is not JSON. */
  readonly body: { data: unknown; error?: string } & Record<string, unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: test data is checked field by field.
  readonly data: any;
}

const corpora = new Map<string, Corpus>();

/** One corpus per (seed, scale) per test file: generation is the slow part. */
export function testCorpus(seed = 7, scale = 0.1): Corpus {
  const key = `${seed}/${scale}`;
  let corpus = corpora.get(key);
  if (corpus === undefined) {
    corpus = generateCorpus({ seed, scale, anchor: ANCHOR });
    corpora.set(key, corpus);
  }
  return corpus;
}

/** A simulator ten minutes after its anchor, unless told otherwise. */
export async function startTestSim(
  options: {
    seed?: number;
    scale?: number;
    at?: number;
    latencyMs?: number;
    profile?: SimProfile;
    quirks?: Partial<SimQuirks>;
  } = {},
) {
  const clock = new TestClock(options.at ?? ANCHOR + 600);
  const sim = await startSimulator({
    corpus: testCorpus(options.seed, options.scale),
    clock: clock.now,
    latencyMs: options.latencyMs ?? 0,
    profile: options.profile,
    quirks: options.quirks,
  });
  const get = (path: string) => fetchAnswer(`${sim.url}${path}`);
  return { ...sim, clock, get } satisfies TestSim;
}

export async function fetchAnswer(url: string, init?: RequestInit): Promise<Answer> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: Answer["body"];
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined as unknown as Answer["body"];
  }
  return { status: response.status, headers: response.headers, text, body, data: body?.data };
}

export const createdTimes = (rows: readonly { created_utc: number }[]): number[] =>
  rows.map((row) => row.created_utc);

export function isSorted(values: readonly number[], direction: "asc" | "desc"): boolean {
  return values.every(
    (value, i) => i === 0 || (direction === "asc" ? values[i - 1]! <= value : values[i - 1]! >= value),
  );
}
