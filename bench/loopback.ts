/**
 * What waking another process costs on this machine: one byte sent to an echo server in another
 * Node process and back, one at a time with a pause between (so the echo server sleeps in between,
 * as a service does at a moderate rate). Every hop of the gateway path pays about half of this, so
 * the figure tells how far another machine's bench results can be compared with this one's.
 */
import { connect } from "node:net";
import { freePort, startProcess, stopAll } from "./processes.ts";

export async function loopbackRoundTripMicros(samples = 2_000, pauseMs = 1): Promise<number> {
  const port = await freePort();
  const echo = startProcess("bench/echo-server.ts", { PORT: String(port) });
  try {
    const socket = await connectWhenUp(port);
    const micros: number[] = [];
    for (let sample = 0; sample < samples; sample++) {
      const started = process.hrtime.bigint();
      await new Promise((resolve) => {
        socket.once("data", resolve);
        socket.write("x");
      });
      micros.push(Number(process.hrtime.bigint() - started) / 1_000);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    socket.destroy();
    micros.sort((a, b) => a - b);
    return Math.round(micros[Math.floor(micros.length / 2)]!);
  } finally {
    await stopAll([echo]);
  }
}

async function connectWhenUp(port: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await new Promise<ReturnType<typeof connect>>((resolve, reject) => {
        const socket = connect(port, "127.0.0.1", () => resolve(socket.setNoDelay(true)));
        socket.once("error", reject);
      });
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
