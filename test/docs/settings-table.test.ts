/**
 * docs/settings.md is generated from the schemas every process validates its environment by
 * (scripts/settings): it must match them, and every variable must say what it means.
 */
import { readFileSync } from "node:fs";
import { env } from "@rda/service-kit";
import { describe, expect, it } from "vitest";
import { SETTING_MEANINGS } from "../../scripts/settings/meanings.ts";
import { SETTINGS_READERS } from "../../scripts/settings/readers.ts";
import { renderSettingsTable, SETTINGS_TABLE_PATH, settingRows } from "../../scripts/settings/table.ts";

const REGENERATE = "run: pnpm exec tsx scripts/settings/table.ts --write";

describe("docs/settings.md", () => {
  it(`matches the schemas and the meanings; after changing either, ${REGENERATE}`, () => {
    expect(readFileSync(SETTINGS_TABLE_PATH, "utf8")).toBe(renderSettingsTable());
  });

  it("no longer matches once a schema gains a variable the table lacks", () => {
    const gained = [
      ...SETTINGS_READERS,
      { name: "gateway", shape: { GATEWAY_NEW_KNOB_MS: env.positiveInt(5) } },
    ];
    const table = renderSettingsTable(settingRows(gained));
    expect(table).toContain("| `GATEWAY_NEW_KNOB_MS` | `5` | gateway |");
    expect(readFileSync(SETTINGS_TABLE_PATH, "utf8")).not.toBe(table);
  });

  it("gives every variable a meaning, and keeps no meaning of a variable nothing reads", () => {
    const names = settingRows().map((row) => row.name);
    expect(names.filter((name) => !SETTING_MEANINGS[name]?.trim())).toEqual([]);
    expect(Object.keys(SETTING_MEANINGS).filter((name) => !names.includes(name))).toEqual([]);
  });
});
