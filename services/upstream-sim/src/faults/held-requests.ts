import type { Socket } from "node:net";

/**
 * Sockets of requests the `timeout` fault never answers. They are destroyed on
 * shutdown, otherwise the server would wait for them forever.
 */
export class HeldRequests {
  readonly #sockets = new Set<Socket>();

  hold(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once("close", () => this.#sockets.delete(socket));
  }

  get size(): number {
    return this.#sockets.size;
  }

  releaseAll(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }
}
