/**
 * A request whose responder says it is alive while it works: a slow responder that sends progress
 * is waited for as long as the request allows; one that falls silent (it died) is given up after
 * the silence allowed, not after the whole timeout. Over a real NATS server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NatsConnection, requestWithProgress, serveSubject } from "../src/index.ts";
import { connectTestNats, silentLogger, testNamespace } from "../src/testing/index.ts";

let requester: NatsConnection;
let responder: NatsConnection;
let watcher: NatsConnection;
const namespace = testNamespace("progress");
/**
 * Until seven progress messages (100 ms apart) have gone to the requester at `replySubject`, seen by
 * a connection beside it: longer than the 500 ms of silence the tests allow.
 */
async function sevenBeatsSent(replySubject: string): Promise<void> {
  const beats = watcher.subscribe(replySubject, { max: 7 });
  await watcher.flush();
  for await (const _beat of beats);
}

beforeAll(async () => {
  [requester, responder, watcher] = await Promise.all([
    connectTestNats(),
    connectTestNats(),
    connectTestNats(),
  ]);
});
afterAll(async () => {
  await Promise.all([requester.close(), watcher.close()]);
  if (!responder.isClosed()) await responder.close();
});

describe("a request with progress", () => {
  it("waits for a responder that works longer than the silence allowed while it sends progress", async () => {
    const subject = `${namespace}.slow`;
    const served = serveSubject(responder, {
      subject,
      queue: "slow",
      logger: silentLogger(),
      progressEveryMs: 100,
      handler: async (_payload, message) => {
        await sevenBeatsSent(message.reply ?? "");
        return "done";
      },
    });
    await responder.flush();
    const reply = await requestWithProgress(requester, subject, "go", { timeoutMs: 10_000, silenceMs: 500 });
    await served.stop();
    expect(reply.ok && new TextDecoder().decode(reply.value)).toBe("done");
  });

  it("gives up on a responder that falls silent, long before the timeout, and says it is lost", async () => {
    const subject = `${namespace}.dying`;
    let received: (replySubject: string) => void = () => {};
    const working = new Promise<string>((resolve) => {
      received = resolve;
    });
    serveSubject(responder, {
      subject,
      queue: "dying",
      logger: silentLogger(),
      progressEveryMs: 100,
      handler: async (_payload, message) => {
        received(message.reply ?? "");
        return new Promise<never>(() => {}); // works until it dies
      },
    });
    await responder.flush();
    const asked = requestWithProgress(requester, subject, "go", { timeoutMs: 30_000, silenceMs: 500 });
    let settled = false;
    void asked.then(() => {
      settled = true;
    });
    await sevenBeatsSent(await working);
    expect(settled).toBe(false);
    // The responder's connection goes, as with a killed process: no reply, no more progress.
    const diedAt = Date.now();
    await responder.close();
    const reply = await asked;
    expect(reply).toMatchObject({ ok: false, error: { kind: "lost" } });
    expect(Date.now() - diedAt).toBeLessThan(5_000);
  });

  it("tells no responders apart at once", async () => {
    const reply = await requestWithProgress(requester, `${namespace}.nobody`, "go", {
      timeoutMs: 10_000,
      silenceMs: 5_000,
    });
    expect(reply).toMatchObject({ ok: false, error: { kind: "no_responders" } });
  });
});
