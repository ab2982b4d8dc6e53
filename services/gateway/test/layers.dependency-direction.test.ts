/**
 * The gateway's modules form layers, each a folder, and imports only point down:
 * - the core (`src/core/`, `src/oauth/`): the billing and adapter clients, admission, idempotency,
 *   keys, the debits' settlement and refunds, credentials and tokens; they know nothing of HTTP;
 * - `src/http/`: reading requests and writing answers, built on the core;
 * - `src/routes/`: the routes, built on both;
 * - the wiring (`src/wiring/`, and the process shell `main.ts` and package entry `index.ts`), which
 *   may import anything.
 * A core module importing from `http/` (say, a type of an HTTP helper) would tie the domain to the
 * transport; `http/` importing from `routes/` would make the layer below depend on one route.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");
/** The only files outside a layer's folder: the process shell and the package's entry. */
const SHELL = new Set(["main.ts", "index.ts"]);
const LAYERS = ["core", "http", "routes", "wiring"] as const;
type Layer = (typeof LAYERS)[number];
const FOLDERS: Record<string, Layer> = {
  core: "core",
  oauth: "core",
  http: "http",
  routes: "routes",
  wiring: "wiring",
};

/** `http/hooks.ts` → "http"; `oauth/access-tokens.ts` → "core"; `main.ts` → "wiring"; else none. */
function layerOf(path: string): Layer | undefined {
  const [top, ...rest] = path.split("/");
  if (rest.length === 0) return SHELL.has(top!) ? "wiring" : undefined;
  return FOLDERS[top!];
}

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** Relative module specifiers of `import … from`, `export … from` and `import("…")`. */
function localImports(text: string): string[] {
  const found = text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g);
  return [...found].map((match) => match[1]!);
}

/** Every import that points to a higher layer, as `from → to`. */
function upwardImports(files: Iterable<string>, read: (file: string) => string): string[] {
  const upward: string[] = [];
  for (const file of files) {
    const from = relative(SRC, file);
    for (const specifier of localImports(read(file))) {
      const to = relative(SRC, resolve(dirname(file), specifier));
      const [fromLayer, toLayer] = [layerOf(from), layerOf(to)];
      if (fromLayer === undefined || toLayer === undefined) continue;
      if (LAYERS.indexOf(toLayer) > LAYERS.indexOf(fromLayer)) upward.push(`${from} → ${to}`);
    }
  }
  return upward;
}

describe("the gateway's layers", () => {
  it("hold every module in a layer's folder", () => {
    const outside = [...sources(SRC)].map((file) => relative(SRC, file)).filter((path) => !layerOf(path));
    expect(outside).toEqual([]);
  });

  it("import only from their own layer or a lower one", () => {
    expect(upwardImports(sources(SRC), (file) => readFileSync(file, "utf8"))).toEqual([]);
  });

  it("would notice a core module importing from http/, and http/ importing from routes/", () => {
    const files: Record<string, string> = {
      [join(SRC, "core/admission.ts")]: 'import type { ErrorContext } from "../http/send-error.ts";',
      [join(SRC, "http/hooks.ts")]: 'import { MCP_PREFIX } from "../routes/mcp-proxy.ts";',
      [join(SRC, "routes/get-account.ts")]: 'import { sendError } from "../http/send-error.ts";',
      [join(SRC, "wiring/app.ts")]: 'export { registerDocs } from "../routes/docs.ts";',
    };
    expect(upwardImports(Object.keys(files), (file) => files[file]!)).toEqual([
      "core/admission.ts → http/send-error.ts",
      "http/hooks.ts → routes/mcp-proxy.ts",
    ]);
  });
});
