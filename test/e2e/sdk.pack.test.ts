/**
 * The SDK as a customer gets it: packed into a tarball the way it would be published (the way
 * `pnpm start` and `pnpm build` pack it, scripts/pack-sdk.mjs), served by the developer portal, and
 * installed with the portal's own install command (the one shown with a new key) by npm over HTTP
 * into a fresh project outside the workspace. Then used by the portal's first-request program and the
 * README's quick start, verbatim, against the running stack, and by a TypeScript program compiled
 * against the bundled declarations without Node's types. The README's install line is the same
 * command, with the local portal's address.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packSdk, sdkTarballName } from "../../scripts/pack-sdk.mjs";
import { BrowserlessClient, csrfTokenOf, linkIn } from "../../services/portal/test/support/client.ts";
import { type Stack, startStack } from "../support/stack.ts";

const run = promisify(execFile);
const SDK = new URL("../../packages/sdk/", import.meta.url).pathname;
const ROOT = new URL("../..", import.meta.url).pathname;

let stack: Stack;
let key: string;
let work: string;
let project: string;
/** The new key's page in the portal: the install command and the first-request program. */
let newKeyPage: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "rda-sdk-pack-"));
  const served = join(work, "served");
  packSdk(served);
  stack = await startStack({ portal: true, portalSettings: { sdkDir: served } });
  key = (await stack.createKey({ credits: 50 })).key;
  newKeyPage = await signUpWithKey();
  await installAsThePortalSays();
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** A developer's first visit, over HTTP: sign up through the emailed link, create a key. */
async function signUpWithKey(): Promise<string> {
  const portal = stack.portal!;
  const email = `sdk-${Date.now()}@example.com`;
  const client = new BrowserlessClient(portal.url);
  await client.submit("/signup", "/signup", { email });
  const [mail] = await portal.inbox.waitForMessages(email);
  const link = linkIn(mail!.text);
  const confirm = await client.get(link);
  await client.post("/auth", {
    _csrf: csrfTokenOf(confirm.body),
    token: new URL(link).searchParams.get("token")!,
  });
  const created = await client.submit("/keys", "/keys", { label: "sdk" });
  return (await client.follow(created)).body;
}

const unescapeHtml = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

function snippet(id: string): string {
  const code = new RegExp(`<pre id="${id}"[^>]*><code>([\\s\\S]*?)</code></pre>`).exec(newKeyPage)?.[1];
  if (code === undefined) throw new Error(`the new key's page has no #${id}`);
  return unescapeHtml(code);
}

/** Runs the portal's install command, as shown, in a fresh project outside the workspace. */
async function installAsThePortalSays(): Promise<void> {
  project = join(work, "consumer");
  await run("mkdir", [project]);
  await writeFile(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  const command = snippet("snippet-install");
  expect(command).toBe(`npm install ${stack.portal!.url}/sdk/${sdkTarballName()}`);
  const [npm, ...args] = command.split(" ");
  await run(npm!, [...args, "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: project });
}

async function quickStart(): Promise<string> {
  const readme = await readFile(join(SDK, "README.md"), "utf8");
  const block = /## Quick start[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error("the README has no quick start example");
  return block;
}

describe("the packed SDK in a fresh project", () => {
  it("installs from the portal's URL, as the README and the portal say, and runs the portal's first request", async () => {
    // The README's command is the portal's, with the address `pnpm start` serves the portal at.
    const readme = await readFile(join(SDK, "README.md"), "utf8");
    const documented = /npm install (http:\/\/127\.0\.0\.1:8060\/sdk\/\S+)/.exec(readme)?.[1];
    expect(documented).toBe(`http://127.0.0.1:8060/sdk/${sdkTarballName()}`);
    const mainReadme = await readFile(join(ROOT, "README.md"), "utf8");
    expect(mainReadme).toContain(`npm install ${documented}`);
    // The tarball itself: what npm fetched, byte for byte the packed file.
    const served = await fetch(`${stack.portal!.url}/sdk/${sdkTarballName()}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("application/gzip");
    expect(Buffer.from(await served.arrayBuffer())).toEqual(
      await readFile(join(work, "served", sdkTarballName())),
    );
    expect((await fetch(`${stack.portal!.url}/sdk/rda-sdk-0.0.1.tgz`)).status).toBe(404);
    expect((await fetch(`${stack.portal!.url}/sdk/..%2Fpackage.json`)).status).toBe(404);

    await writeFile(join(project, "first-request.mjs"), snippet("snippet-sdk"));
    const { stdout } = await run(process.execPath, ["first-request.mjs"], { cwd: project });
    expect(stdout).toMatch(/^\[\s*'/);
  });

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
