/**
 * Outgoing mail over SMTP with nodemailer (SMTP_URL: `smtp://` with STARTTLS when offered, or
 * `smtps://`; credentials in the URL). One pooled transport per process; a failure to send is a
 * value the caller turns into "try again", never an exception.
 */
import { err, ok, type Result } from "@rda/contracts";
import { redactUrl } from "@rda/service-kit";
import nodemailer from "nodemailer";

export interface OutgoingMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** Extra headers (a notice's `List-Unsubscribe`). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<Result<void, string>>;
  close(): void;
}

export function createSmtpMailer(options: { url: string; from: string }): Mailer {
  const transport = nodemailer.createTransport(
    {
      url: options.url,
      pool: true,
      maxConnections: 3,
      // A slow or unreachable server must not hold a page for long: the user is told to retry.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 15_000,
    },
    { from: options.from },
  );
  return {
    async send(mail) {
      try {
        await transport.sendMail(mail);
        return ok(undefined);
      } catch (error) {
        return err(
          `SMTP ${redactUrl(options.url)}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    },
    close: () => transport.close(),
  };
}
