/**
 * A real SMTP server that keeps what it receives, for tests: MailDev (the same capture inbox
 * `pnpm start` runs), on free ports, read through its JSON API as a person's mail client would.
 * Loaded lazily: only the tests that send mail pay for it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { freePort, waitFor } from "./index.ts";

const capturedMailSchema = z.object({
  id: z.string(),
  time: z.string(),
  subject: z.string(),
  to: z.array(z.object({ address: z.string() })),
  text: z.string().optional().default(""),
  html: z.string().optional().default(""),
});
export type CapturedMail = z.infer<typeof capturedMailSchema>;

export interface CaptureInbox {
  /** Where to send: `smtp://127.0.0.1:PORT`. */
  readonly smtpUrl: string;
  readonly smtpPort: number;
  /** The web page and its JSON API (`GET /api/email`). */
  readonly webUrl: string;
  /** Every message to `address` (case-insensitive), oldest first. */
  messagesTo(address: string): Promise<CapturedMail[]>;
  /** Waits until `address` has received `count` messages, and returns them. */
  waitForMessages(address: string, count?: number, timeoutMs?: number): Promise<CapturedMail[]>;
  /** A message's header lines as sent (MailDev's parsed headers leave some out), names in lower case. */
  headersOf(mail: CapturedMail): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

export interface CaptureInboxOptions {
  /** Require SMTP AUTH with these credentials, as a real mail server does. */
  readonly user?: string;
  readonly pass?: string;
}

export async function startCaptureInbox(options: CaptureInboxOptions = {}): Promise<CaptureInbox> {
  const { MailDev } = await import("maildev");
  const [smtpPort, webPort] = await Promise.all([freePort(), freePort()]);
  const mailDirectory = await mkdtemp(join(tmpdir(), "rda-inbox-"));
  const server = new MailDev({
    smtp: smtpPort,
    ip: "127.0.0.1",
    web: webPort,
    webIp: "127.0.0.1",
    mailDirectory,
    silent: true,
    ...(options.user ? { incomingUser: options.user, incomingPass: options.pass } : {}),
  });
  await server.start();
  const webUrl = `http://127.0.0.1:${webPort}`;
  const messagesTo = async (address: string) => {
    const response = await fetch(`${webUrl}/api/email`);
    const all = z.array(capturedMailSchema).parse(await response.json());
    const wanted = address.toLowerCase();
    return all.filter((mail) => mail.to.some((to) => to.address.toLowerCase() === wanted));
  };
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    smtpPort,
    webUrl,
    messagesTo,
    async waitForMessages(address, count = 1, timeoutMs = 10_000) {
      const found = await waitFor(
        async () => {
          const messages = await messagesTo(address);
          return messages.length >= count ? messages : undefined;
        },
        `${count} message(s) to ${address}`,
        timeoutMs,
      );
      return found ?? [];
    },
    async headersOf(mail) {
      const source = await (await fetch(`${webUrl}/api/email/${mail.id}/source`)).text();
      const head = source.split(/\r?\n\r?\n/, 1)[0] ?? "";
      const headers: Record<string, string> = {};
      for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      return headers;
    },
    async stop() {
      await server.stop();
      await rm(mailDirectory, { recursive: true, force: true });
    },
  };
}
