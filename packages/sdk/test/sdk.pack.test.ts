/**
 * The SDK as a customer gets it: packed into a tarball the way it would be published, installed with
 * npm into a fresh project outside the workspace (offline: it has no dependencies), then used by a
 * plain .mjs program (the README's quick start, verbatim) against the running stack, and by a
 * TypeScript program compiled against the bundled declarations without Node's types.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../../test/support/stack.ts";

const run = promisify(execFile);
const SDK = new URL("..", import.meta.url).pathname;
const ROOT = new URL("../../..", import.meta.url).pathname;

let stack: Stack;
let key: string;
let work: string;
let project: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "rda-sdk-pack-"));
  const [started] = await Promise.all([startStack(), packAndInstall()]);
  stack = started;
  key = (await stack.createKey({ credits: 50 })).key;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

async function packAndInstall(): Promise<void> {
  await run("pnpm", ["pack", "--pack-destination", work], { cwd: SDK });
  const tarball = (await readdir(work)).find((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error("pnpm pack wrote no tarball");
  project = join(work, "consumer");
  await run("mkdir", [project]);
  await writeFile(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  await run(
    "npm",
    ["install", join(work, tarball), "--offline", "--no-audit", "--no-fund", "--ignore-scripts"],
    {
      cwd: project,
    },
  );
}

async function quickStart(): Promise<string> {
  const readme = await readFile(join(SDK, "README.md"), "utf8");
  const block = /## Quick start[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error("the README has no quick start example");
  return block;
}

describe("the packed SDK in a fresh project", () => {
  it("publishes only the built ESM, its declarations and the README, with no dependencies", async () => {
    const manifest = JSON.parse(
      await readFile(join(project, "node_modules", "@rda", "sdk", "package.json"), "utf8"),
    ) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    expect(JSON.stringify(manifest)).not.toContain("@rda/contracts");
    expect(manifest.exports).toEqual({ ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } });
    const files = await readdir(join(project, "node_modules", "@rda", "sdk", "dist"));
    expect(files.sort()).toEqual(["index.d.ts", "index.js", "index.js.map"]);
  });

  it("runs the README's quick start as a plain .mjs program against the running API", async () => {
    await writeFile(join(project, "example.mjs"), await quickStart());
    const { stdout } = await run(process.execPath, ["example.mjs"], {
      cwd: project,
      env: { PATH: process.env.PATH, RDA_BASE_URL: stack.gatewayUrl, RDA_API_KEY: key },
    });
    const lines = stdout.trim().split("\n");
    expect(lines.filter((line) => line.startsWith("post ")).length).toBeGreaterThan(0);
    const pages = lines.filter((line) => line.startsWith("page "));
    expect(pages).toHaveLength(3);
    expect(pages[0]).toMatch(/^page 1 rows \d+ has_more true$/);
    // 1 credit for the single page and 1 for each of the 3 pages; the account is free.
    expect(lines.at(-1)).toBe("credits left 46");
  });

  it("type-checks a TypeScript consumer against the bundled declarations, without Node's types", async () => {
    await writeFile(
      join(project, "consumer.ts"),
      [
        'import { createGatewayClient, type Post, type GatewayResult, type Envelope } from "@rda/sdk";',
        'const api = createGatewayClient({ baseUrl: "https://api.example", apiKey: "k" });',
        'const page: GatewayResult<Envelope<"listPosts">> = await api.listPosts({ subreddit: "typescript", limit: 5 });',
        "if (page.ok) { const first: Post | undefined = page.value.data[0]; first?.title?.toUpperCase(); }",
        'for await (const post of api.posts({ author: "someone", sort: "asc" })) post.created_utc?.toFixed();',
        "// @ts-expect-error: limit is a number",
        'await api.listPosts({ subreddit: "x", limit: "many" });',
        "export {};",
      ].join("\n"),
    );
    await writeFile(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "es2022",
          module: "nodenext",
          moduleResolution: "nodenext",
          lib: ["es2022", "dom", "dom.iterable"],
          types: [],
          strict: true,
          noEmit: true,
        },
        files: ["consumer.ts"],
      }),
    );
    const tsc = join(ROOT, "node_modules", ".bin", "tsc");
    const compiled = await run(tsc, ["-p", "tsconfig.json"], { cwd: project }).catch(
      (failure: { stdout?: string }) => ({ stdout: failure.stdout ?? "tsc failed" }),
    );
    expect(compiled.stdout).toBe("");
  });
});
