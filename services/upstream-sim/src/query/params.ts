import { Messages } from "../errors.ts";
import { parseDate } from "./dates.ts";

export type Query = Readonly<Record<string, unknown>>;

const TRUE = new Set(["true", "1", "yes", "y"]);
const FALSE = new Set(["false", "0", "no", "n"]);
const INTEGER = /^-?\d+$/;
const NAME_PREFIX = { u: /^\/?u\//i, r: /^\/?r\//i } as const;

/**
 * Reads query parameters the upstream's way. The first problem found is kept as
 * `error` (an expected outcome, not an exception); readers return undefined or
 * the default after an error, and the route answers 400 with that message.
 */
export class ParamReader {
  #error: string | undefined;
  readonly #query: Query;
  readonly nowSeconds: number;

  constructor(query: Query, nowSeconds: number) {
    this.#query = query;
    this.nowSeconds = nowSeconds;
  }

  get error(): string | undefined {
    return this.#error;
  }

  fail(message: string): undefined {
    this.#error ??= message;
    return undefined;
  }

  /** The raw value; "" when given empty; undefined when absent. */
  text(name: string): string | undefined {
    const value = this.#query[name];
    if (value === undefined) return undefined;
    if (typeof value !== "string") return this.fail(Messages.duplicateParam(name));
    return value;
  }

  /** A non-empty value, trimmed. */
  word(name: string): string | undefined {
    const value = this.text(name)?.trim();
    return value ? value : undefined;
  }

  /** An author or subreddit name; a `u/` or `r/` prefix is ignored (docs/upstream.md#post-and-comment-search). */
  name(name: string, prefix: "u" | "r"): string | undefined {
    const value = this.word(name)?.replace(NAME_PREFIX[prefix], "");
    return value ? value : undefined;
  }

  int(name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const value = this.word(name);
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!INTEGER.test(value) || n < min || n > max)
      return this.fail(Messages.invalidParam(name, range(min, max)));
    return n;
  }

  /** `limit`: an integer in [1, max], or "auto" where allowed (then 100, as observed). */
  limit(max: number, fallback: number, allowAuto: boolean): number {
    const value = this.word("limit");
    if (allowAuto && value?.toLowerCase() === "auto") return 100;
    const expected = `must be an integer between 1 and ${max}${allowAuto ? ' or "auto"' : ""}`;
    if (value !== undefined && !(INTEGER.test(value) && Number(value) >= 1 && Number(value) <= max)) {
      this.fail(Messages.invalidParam("limit", expected));
    }
    return value === undefined || this.#error ? fallback : Number(value);
  }

  bool(name: string): boolean | undefined {
    const value = this.word(name)?.toLowerCase();
    if (value === undefined) return undefined;
    if (TRUE.has(value)) return true;
    if (FALSE.has(value)) return false;
    return this.fail(Messages.invalidParam(name, "must be one of true, false, 1, 0, yes, no, y, n"));
  }

  date(name: string): number | undefined {
    const value = this.word(name);
    if (value === undefined) return undefined;
    const seconds = parseDate(value, this.nowSeconds);
    if (seconds === undefined) {
      return this.fail(
        Messages.invalidParam(
          name,
          "expected epoch seconds or milliseconds, an ISO 8601 date or an offset like 7d",
        ),
      );
    }
    return seconds;
  }

  choice<T extends string>(name: string, options: readonly T[], fallback: T): T {
    const value = this.word(name);
    if (value === undefined) return fallback;
    const found = options.find((option) => option === value.toLowerCase());
    if (found !== undefined) return found;
    this.fail(Messages.invalidParam(name, `must be one of ${options.join(", ")}`));
    return fallback;
  }

  /** A comma list; empty entries are dropped. */
  list(name: string, max: number): string[] | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    const items = value
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
    if (items.length > max) return this.fail(Messages.tooMany(name, max));
    return items;
  }

  /** `fields`: a projection over the selectable fields; anything else is a 400. */
  fields(selectable: ReadonlySet<string>): string[] | undefined {
    const fields = this.list("fields", 1000);
    if (fields === undefined || fields.length === 0) return undefined;
    const unknown = fields.find((field) => !selectable.has(field));
    if (unknown !== undefined) return this.fail(Messages.fieldNotSelectable(unknown));
    return [...new Set(fields)];
  }
}

function range(min: number, max: number): string {
  return max === Number.MAX_SAFE_INTEGER
    ? `must be an integer >= ${min}`
    : `must be an integer between ${min} and ${max}`;
}
