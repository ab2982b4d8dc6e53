/**
 * Signed, expiring links to a finished export's file, served by the exports service's own small
 * HTTP listener (download-server.ts). The gateway asks for one only after it has checked that the
 * caller's key owns the job, and fetches the file through it; the link names one export and dies
 * within minutes, so it is worth nothing to anyone else who sees it.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export interface DownloadLinks {
  sign(id: string, nowMs?: number): string;
  /** The export id a link's parts name, if the signature holds and it has not expired. */
  verify(id: string, expires: string, signature: string, nowMs?: number): boolean;
}

export function downloadLinks(secret: string, baseUrl: string, lifetimeMs: number): DownloadLinks {
  const mac = (id: string, expires: string) =>
    createHmac("sha256", secret).update(`${id}:${expires}`).digest("base64url");
  return {
    sign(id, nowMs = Date.now()) {
      const expires = String(nowMs + lifetimeMs);
      return `${baseUrl}/files/${id}?expires=${expires}&sig=${mac(id, expires)}`;
    },
    verify(id, expires, signature, nowMs = Date.now()) {
      if (!/^\d{1,15}$/.test(expires) || Number(expires) < nowMs) return false;
      const expected = Buffer.from(mac(id, expires));
      const given = Buffer.from(signature);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}
