import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const billingDir = fileURLToPath(new URL("..", import.meta.url));

describe("the billing process", () => {
  it("exits at once with code 1 naming REDIS_URL when REDIS_URL is not a Redis URL", async () => {
    const failure = await run("node", ["--import", "tsx", "src/main.ts"], {
      cwd: billingDir,
      // Free ports, should any be bound before the bad value is read: a stack may hold the defaults.
      env: { ...process.env, METRICS_PORT: "0", HEALTH_PORT: "0", REDIS_URL: "nonsense" },
      timeout: 20_000,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toMatch(/REDIS_URL: must be a URL like redis:\/\//);
  });
});
