/**
 * The published build: one ESM file and its bundled type declarations in dist/. The SDK has no
 * dependencies: its contract comes from src/generated/, and `standardwebhooks` (pure JavaScript,
 * for verifyWebhook) and its two small helpers are bundled in.
 */
import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  // ES2022 runs on Node 20+ and every current browser, Deno, Bun and edge runtime.
  target: "es2022",
  platform: "neutral",
  dts: true,
  clean: true,
  sourcemap: true,
  noExternal: ["standardwebhooks", "@stablelib/base64", "fast-sha256"],
});
