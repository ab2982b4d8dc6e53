import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "services/*/test/**/*.test.ts",
      "test/**/*.test.ts",
      "deploy/test/**/*.test.ts",
    ],
    globalSetup: ["./vitest.global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: a few workers keep the machine responsive for the servers the tests start.
    maxWorkers: 3,
    reporters: ["default"],
  },
});
