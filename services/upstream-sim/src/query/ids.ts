import { Messages } from "../errors.ts";
import type { IdKind } from "./lookup.ts";
import { parseId } from "./lookup.ts";
import type { ParamReader } from "./params.ts";

/** At most 500 ids per request (upstream README). */
const MAX_IDS = 500;

/** `ids`: a comma list of base36 ids, each with or without its t3_/t1_ prefix; duplicates once. */
export function readIds(reader: ParamReader, kind: IdKind): number[] | undefined {
  const list = reader.list("ids", MAX_IDS);
  if (list === undefined || list.length === 0) return reader.fail(Messages.missingParam("ids"));
  const ids: number[] = [];
  for (const text of list) {
    const id = parseId(text, kind);
    if (id === undefined) return reader.fail(Messages.invalidParam("ids", `'${text}' is not a base36 id`));
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}
