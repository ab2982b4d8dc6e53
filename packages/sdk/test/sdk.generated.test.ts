/**
 * The SDK carries its own copy of the contract (src/generated/) so that it needs neither the private
 * contracts package nor zod. This keeps the copy honest: it must equal what the contracts generate now.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { renderSdkFiles } from "../../../scripts/generate-sdk.ts";

describe("the SDK's generated contract files", () => {
  it("match the contracts; after a contract change, run: pnpm exec tsx scripts/generate-sdk.ts", async () => {
    const fresh = await renderSdkFiles();
    for (const [name, text] of Object.entries(fresh)) {
      const committed = await readFile(new URL(`../src/generated/${name}`, import.meta.url), "utf8");
      expect(committed, `packages/sdk/src/generated/${name} is stale`).toBe(text);
    }
  });
});
