/** A TCP echo server: the other end of the bench's loopback round trip (see loopback.ts). */
import { createServer } from "node:net";

const server = createServer((socket) => {
  socket.setNoDelay(true);
  socket.on("data", (chunk) => socket.write(chunk));
});
server.listen(Number(process.env.PORT), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
