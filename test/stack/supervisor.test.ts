/**
 * `pnpm start`'s supervisor (scripts/start-stack.ts) as a person at a terminal meets it: log lines
 * pretty-printed, each prefixed by its service; and when the supervisor dies, even by SIGKILL, no
 * service it started is left running.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { buildSubjects } from "@rda/contracts";
import { jetstreamManager } from "@rda/service-kit";
import {
  connectTestNats,
  connectTestRedis,
  deleteNamespaceKeys,
  freePort,
  testNamespace,
  waitFor,
} from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chooseLogFormat, lineFormatter, serviceLine, supervisorLine } from "../../scripts/stack-logs.ts";
import { ROOT } from "./support.ts";

const STARTED = /\[stack\] started (\S+) \(pid (\d+)\)/;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the pnpm start supervisor", () => {
  const namespace = testNamespace("supervise");
  const pids = new Map<string, number>();
  const output: string[] = [];
  let supervisor: ChildProcess;

  beforeAll(async () => {
    const [port, simPort, mcpPort, paymentsPort, internalPort, portalPort, smtpPort, mailUiPort] =
      await Promise.all(Array.from({ length: 8 }, () => freePort()));
    const env = {
      ...process.env,
      PORT: String(port),
      SIM_PORT: String(simPort),
      SIM_SCALE: "0.05",
      MCP_PORT: String(mcpPort),
      PAYMENTS_SIM_PORT: String(paymentsPort),
      STRIPE_SECRET_KEY: "",
      GATEWAY_INTERNAL_PORT: String(internalPort),
      // Not the defaults (8060, 1025, 8025): a stack of the developer's own may be running.
      PORTAL_PORT: String(portalPort),
      MAIL_SMTP_PORT: String(smtpPort),
      MAIL_UI_PORT: String(mailUiPort),
      HEALTH_PORT: "0",
      EXPORTS_PORT: "0",
      METRICS_PORT: "0",
      RDA_NAMESPACE: namespace,
      UPSTREAM_URL: "",
      LOG_FORMAT: "pretty",
    };
    // The supervisor itself, not pnpm in front of it: it is the process that gets killed.
    supervisor = spawn(process.execPath, ["--import", "tsx", join(ROOT, "scripts", "start-stack.ts")], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready in 120 s:\n${output.join("\n")}`)), 120_000);
      for (const stream of [supervisor.stdout!, supervisor.stderr!]) {
        createInterface({ input: stream }).on("line", (line) => {
          output.push(line);
          const started = STARTED.exec(line);
          if (started) pids.set(started[1]!, Number(started[2]));
          if (/API ready at/.test(line)) {
            clearTimeout(timer);
            resolve();
          }
        });
      }
      supervisor.once("exit", (code) => reject(new Error(`exited with ${code}:\n${output.join("\n")}`)));
    });
  }, 150_000);

  afterAll(async () => {
    for (const pid of pids.values()) if (isRunning(pid)) process.kill(pid, "SIGKILL");
    if (supervisor.exitCode === null && supervisor.signalCode === null) supervisor.kill("SIGKILL");
    const nats = await connectTestNats();
    const jsm = await jetstreamManager(nats);
    await jsm.streams.delete(buildSubjects(namespace).refundStream).catch(() => undefined);
    await nats.close();
    const redis = await connectTestRedis();
    await deleteNamespaceKeys(redis, namespace);
    redis.disconnect();
  }, 30_000);

  it("pretty-prints each service's log lines behind its name when asked to (as in a terminal)", async () => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the colour codes of a terminal
    const plain = () => output.map((line) => line.replace(/\u001b\[\d+m/g, ""));
    // Services write their log lines in batches, flushed within a second.
    const ready = await waitFor(
      () => plain().find((line) => line.includes("[gateway]") && line.includes("gateway listening")),
      "the gateway's listening line",
      5_000,
    );
    expect(ready).toMatch(/^\[gateway\] \[\d\d:\d\d:\d\d\.\d{3}\] INFO: gateway listening \{/);
    expect(output.filter((line) => line.includes('"level":30'))).toEqual([]);
  });

  it("stops every service it started when it is killed with SIGKILL", async () => {
    expect([...pids.keys()].sort()).toEqual([
      "adapter-communities",
      "adapter-posts",
      "adapter-tree",
      "adapter-users",
      "billing",
      "exports",
      "gateway",
      "mail",
      "mcp",
      "monitors",
      "notices",
      "payments-sim",
      "portal",
      "upstream-sim",
    ]);
    expect([...pids.values()].every(isRunning)).toBe(true);
    supervisor.kill("SIGKILL");
    await waitFor(() => [...pids.values()].every((pid) => !isRunning(pid)), "every service to exit", 40_000);
  }, 60_000);
});

describe("the supervisor's log format", () => {
  it("is pretty on a terminal and JSON when piped, unless LOG_FORMAT says otherwise", () => {
    expect(chooseLogFormat(undefined, true)).toBe("pretty");
    expect(chooseLogFormat(undefined, false)).toBe("json");
    expect(chooseLogFormat("json", true)).toBe("json");
    expect(chooseLogFormat("pretty", false)).toBe("pretty");
    expect(chooseLogFormat("fancy", true)).toBeUndefined();
  });

  it("passes JSON lines through unchanged when piped, and pretty-prints them for a person", () => {
    const line =
      '{"level":40,"time":1795429835417,"service":"billing","key_id":"key_1","msg":"refund not applied yet"}';
    expect(lineFormatter("json")(line)).toBe(line);
    expect(lineFormatter("pretty", false)(line)).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: refund not applied yet \{"key_id":"key_1"\}$/,
    );
    expect(lineFormatter("pretty", false)("    at a stack frame")).toBe("    at a stack frame");
  });

  it("makes every piped line a JSON object: other text is wrapped, naming its service; no prefixes", () => {
    const json = serviceLine("json", "mail", 31);
    const pino = '{"level":30,"time":1,"service":"portal","msg":"portal listening"}';
    expect(json(pino, "info")).toBe(pino);
    expect(JSON.parse(json("MailDev webapp running at http://127.0.0.1:8025/", "info"))).toMatchObject({
      level: 30,
      service: "mail",
      msg: "MailDev webapp running at http://127.0.0.1:8025/",
    });
    expect(JSON.parse(json("    at a stack frame", "error"))).toMatchObject({ level: 50, service: "mail" });
    expect(JSON.parse(json("[1,2]", "info"))).toMatchObject({ msg: "[1,2]" });
    expect(JSON.parse(supervisorLine("json", "info", "started gateway (pid 7)", { pid: 7 }))).toMatchObject({
      service: "stack",
      msg: "started gateway (pid 7)",
      pid: 7,
    });
    expect(supervisorLine("pretty", "info", "stopping every service")).toBe("[stack] stopping every service");
    // The colour codes of a terminal around the name.
    expect(serviceLine("pretty", "mail", 31)("plain text", "info")).toBe(
      "\u001b[31m[mail]\u001b[0m plain text",
    );
  });
});
