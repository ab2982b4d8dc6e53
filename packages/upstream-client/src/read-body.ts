/** Reads a response body whole, refusing it once it grows past a bound. */
import type { Readable } from "node:stream";

export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`upstream body exceeds ${limitBytes} bytes`);
    this.name = "BodyTooLargeError";
  }
}

export async function readBounded(
  body: Readable & { dump?: () => Promise<void> },
  declaredLength: string | string[] | undefined,
  maxBytes: number,
): Promise<Buffer> {
  if (typeof declaredLength === "string" && Number(declaredLength) > maxBytes) {
    await body.dump?.();
    throw new BodyTooLargeError(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}
