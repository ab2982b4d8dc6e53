import { describe, expect, it } from "vitest";
import { startLoop } from "../src/loop.ts";
import { capturingLogger, waitFor } from "../src/testing/index.ts";

/** A turn the test lets finish when it says so. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * Until a loop on the same period beside the one under test has taken `count` turns: that many
 * periods went by, each of which would have started a turn that was due.
 */
async function periodsPass(everyMs: number, count: number): Promise<void> {
  let turns = 0;
  const witness = startLoop({
    name: "witness",
    everyMs,
    logger: capturingLogger().logger,
    async turn() {
      turns += 1;
    },
  });
  await waitFor(() => turns >= count, `${count} periods of ${everyMs} ms`);
  await witness.stop();
}

describe("startLoop", () => {
  it("never runs two turns at once, however slow a turn is", async () => {
    const { logger } = capturingLogger();
    let running = 0;
    let most = 0;
    let turns = 0;
    const slow = gate();
    const loop = startLoop({
      name: "test",
      everyMs: 1,
      logger,
      async turn() {
        running += 1;
        most = Math.max(most, running);
        turns += 1;
        if (turns === 1) await slow.opened;
        running -= 1;
      },
    });
    await waitFor(() => turns === 1, "the first turn");
    // Many periods pass while the first turn is held: none of them starts a second.
    await periodsPass(1, 20);
    expect(turns).toBe(1);
    slow.open();
    await waitFor(() => turns >= 3, "turns after the slow one");
    await loop.stop();
    expect(most).toBe(1);
  });

  it("stop waits for the turn under way, and no turn starts after it", async () => {
    const { logger } = capturingLogger();
    const held = gate();
    let started = 0;
    let finished = 0;
    const loop = startLoop({
      name: "test",
      everyMs: 1,
      logger,
      async turn() {
        started += 1;
        await held.opened;
        finished += 1;
      },
    });
    await waitFor(() => started === 1, "a turn under way");
    let stopped = false;
    const stopping = loop.stop().then(() => {
      stopped = true;
    });
    await periodsPass(1, 20);
    expect(stopped).toBe(false);
    held.open();
    await stopping;
    expect(finished).toBe(1);
    await periodsPass(1, 20);
    expect(started).toBe(1);
  });

  it("logs a turn that throws and goes on with the next", async () => {
    const { logger, lines } = capturingLogger();
    let turns = 0;
    const loop = startLoop({
      name: "retention sweep",
      everyMs: 1,
      logger,
      startNow: true,
      async turn() {
        turns += 1;
        if (turns === 1) throw new Error("redis went away");
      },
    });
    await waitFor(() => turns >= 2, "a turn after the failed one");
    await loop.stop();
    expect(lines()).toContain("retention sweep turn failed");
    expect(lines()).toContain("redis went away");
  });
});
