/**
 * Profiles: how closely the simulator imitates the real upstream's quirks (docs/upstream.md#assumptions).
 * `default` serves the regular, generous API every other test relies on; `strict` turns on every quirk
 * the real upstream is known or suspected to have, so the product is tested against the harsher reading.
 * Each quirk also has its own environment variable, which overrides the profile's value, so a test can
 * pick exactly the quirks it exercises.
 *
 * This module is the one place that maps a profile to its quirks: a new quirk is a field of `SimQuirks`,
 * its value in each profile, and its variable in `quirkEnvShape`.
 */
import { z } from "zod";

export const SIM_PROFILES = ["default", "strict"] as const;
export type SimProfile = (typeof SIM_PROFILES)[number];

/** Quirks of the data the upstream answers with (docs/upstream.md#assumptions). */
export interface DataQuirks {
  /** The tree endpoint answers `{"data": []}` unless `link_id` carries its `t3_` prefix. */
  readonly treeNeedsPrefix: boolean;
  /**
   * Epoch seconds: `created_utc`, `created` and `retrieved_on` values earlier than this are sent as
   * numeric strings, as the upstream's dumps store old items. Undefined: always integers.
   */
  readonly stringEpochsBefore: number | undefined;
  /** `after` includes its boundary second (`created_utc >= after`). */
  readonly afterInclusive: boolean;
  /**
   * `before` includes its boundary second. Not in any profile (the upstream's `before` was measured
   * exclusive); tests use it to show paging exact under either reading of either bound.
   */
  readonly beforeInclusive: boolean;
  /** A request without a `User-Agent` header is answered 403 with a Cloudflare block page (HTML). */
  readonly requireUserAgent: boolean;
  /** Share (0..1) of rules whose `description` is null; which ones is fixed by the seed. */
  readonly nullRuleDescriptionRate: number;
  /**
   * Share (0..1) of distinct post and comment search queries whose first answer is a transient
   * `{"data": []}`; asking the same query again answers it properly. Which ones is fixed by the seed,
   * so a test does not depend on luck (1 makes every first answer empty).
   */
  readonly transientEmptyPageRate: number;
  /**
   * Share (0..1) of posts and comments the archive ingests late, and how late (seconds after their
   * `created_utc`): until then a search does not find them, though newer items are found. Which ones
   * is fixed by the seed. Users report items appearing hours late at times.
   */
  readonly lateIngestShare: number;
  readonly lateIngestSeconds: number;
}

export type SimQuirks = DataQuirks;

/** 2015-07-01: the dumps store `created_utc` as a string for comments to 2014 and posts to mid-2015. */
export const STRICT_STRING_EPOCHS_BEFORE = Date.UTC(2015, 6, 1) / 1000;

export const PROFILE_QUIRKS: Readonly<Record<SimProfile, SimQuirks>> = {
  default: {
    treeNeedsPrefix: false,
    stringEpochsBefore: undefined,
    afterInclusive: false,
    beforeInclusive: false,
    requireUserAgent: false,
    nullRuleDescriptionRate: 0,
    transientEmptyPageRate: 0,
    lateIngestShare: 0,
    lateIngestSeconds: 0,
  },
  strict: {
    treeNeedsPrefix: true,
    stringEpochsBefore: STRICT_STRING_EPOCHS_BEFORE,
    afterInclusive: true,
    beforeInclusive: false,
    requireUserAgent: true,
    // Far above the 1 % of the dumps, so that every community shows one.
    nullRuleDescriptionRate: 0.25,
    transientEmptyPageRate: 0.05,
    lateIngestShare: 0,
    lateIngestSeconds: 0,
  },
};

/** A profile's quirks with some of them overridden (tests, or the environment). */
export function resolveQuirks(
  profile: SimProfile = "default",
  overrides: Partial<SimQuirks> = {},
): SimQuirks {
  const chosen: Record<string, unknown> = { ...PROFILE_QUIRKS[profile] };
  for (const [name, value] of Object.entries(overrides)) {
    // An explicit undefined means "not given", except where undefined is itself a setting.
    if (value !== undefined || name === "stringEpochsBefore") chosen[name] = value;
  }
  return Object.freeze(chosen as unknown as SimQuirks);
}

const flag = () => z.enum(["true", "false"], { error: "must be true or false" }).optional();
const rate = () => z.coerce.number({ error: "must be a number" }).min(0).max(1).optional();
/** Epoch seconds or an ISO 8601 date; `off` (or empty) turns the quirk off. */
const instantOrOff = () =>
  z
    .string()
    .optional()
    .transform((raw, context) => {
      if (raw === undefined) return undefined;
      if (raw === "" || raw === "off") return "off" as const;
      const seconds = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw) / 1000;
      if (Number.isFinite(seconds)) return Math.floor(seconds);
      context.addIssue({ code: "custom", message: "must be epoch seconds, an ISO 8601 date, or off" });
      return z.NEVER;
    });

/** The environment variables of the profile and its quirks (README.md#profiles). */
export const quirkEnvShape = {
  SIM_PROFILE: z.enum(SIM_PROFILES, { error: "must be default or strict" }).default("default"),
  SIM_TREE_NEEDS_PREFIX: flag(),
  SIM_STRING_EPOCHS_BEFORE: instantOrOff(),
  SIM_AFTER_INCLUSIVE: flag(),
  SIM_BEFORE_INCLUSIVE: flag(),
  SIM_REQUIRE_USER_AGENT: flag(),
  SIM_NULL_RULE_DESCRIPTIONS: rate(),
  SIM_TRANSIENT_EMPTY_PAGES: rate(),
  SIM_LATE_INGEST_SHARE: rate(),
  SIM_LATE_INGEST_S: z.coerce.number({ error: "must be a number" }).int().min(0).optional(),
};

type QuirkEnv = z.output<z.ZodObject<typeof quirkEnvShape>>;

export function quirksFromEnv(config: QuirkEnv): SimQuirks {
  const bool = (value: "true" | "false" | undefined) => (value === undefined ? undefined : value === "true");
  const overrides: Partial<Record<keyof SimQuirks, unknown>> = {
    treeNeedsPrefix: bool(config.SIM_TREE_NEEDS_PREFIX),
    afterInclusive: bool(config.SIM_AFTER_INCLUSIVE),
    beforeInclusive: bool(config.SIM_BEFORE_INCLUSIVE),
    requireUserAgent: bool(config.SIM_REQUIRE_USER_AGENT),
    nullRuleDescriptionRate: config.SIM_NULL_RULE_DESCRIPTIONS,
    transientEmptyPageRate: config.SIM_TRANSIENT_EMPTY_PAGES,
    lateIngestShare: config.SIM_LATE_INGEST_SHARE,
    lateIngestSeconds: config.SIM_LATE_INGEST_S,
  };
  const cutoff = config.SIM_STRING_EPOCHS_BEFORE;
  const profile = PROFILE_QUIRKS[config.SIM_PROFILE];
  const resolved = resolveQuirks(config.SIM_PROFILE, overrides as Partial<SimQuirks>);
  const stringEpochsBefore =
    cutoff === undefined ? profile.stringEpochsBefore : cutoff === "off" ? undefined : cutoff;
  return Object.freeze({ ...resolved, stringEpochsBefore });
}
