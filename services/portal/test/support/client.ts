/**
 * A browser without a browser, for the security tests: keeps cookies, does not follow redirects
 * (tests look at each answer), reads a page's CSRF token and links the way a person would see them.
 */
import type { CaptureInbox } from "@rda/service-kit/testing";

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  readonly location: string | null;
}

export class BrowserlessClient {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    /** Sent as X-Forwarded-For: the client address the portal's mail limits count. */
    readonly ip = "203.0.113.10",
  ) {}

  get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.request("GET", path, undefined, headers);
  }

  post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
    return this.request("POST", path, new URLSearchParams(form).toString(), {
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    });
  }

  /** Opens `pagePath`, then sends the form there with the page's own CSRF token. */
  async submit(pagePath: string, action: string, form: Record<string, string>): Promise<Answer> {
    const page = await this.get(pagePath);
    return this.post(action, { _csrf: csrfTokenOf(page.body), ...form });
  }

  /**
   * Creates an account as a person does: the sign-up form, the emailed link (read from `inbox`), and
   * the confirmation posted from the link's page. Leaves this client signed in.
   */
  async signUp(email: string, inbox: Pick<CaptureInbox, "waitForMessages">): Promise<Answer> {
    await this.submit("/signup", "/signup", { email });
    const [mail] = await inbox.waitForMessages(email);
    if (!mail) throw new Error(`no sign-in mail reached ${email}`);
    const link = linkIn(mail.text);
    const confirm = await this.get(link);
    return this.post("/auth", {
      _csrf: csrfTokenOf(confirm.body),
      token: new URL(link).searchParams.get("token") ?? "",
    });
  }

  /**
   * Creates a key through the keys form as a person does: the form redirects to the page that shows
   * the new secret once (POST-redirect-GET), which names the key and holds its secret.
   */
  async createKey(label: string): Promise<{ readonly id: string; readonly secret: string }> {
    const posted = await this.submit("/keys", "/keys", { label });
    if (posted.status !== 303) throw new Error(`creating a key answered ${posted.status}, not a redirect`);
    const shown = await this.follow(posted);
    const id = /key_[0-9a-z]{16}/.exec(shown.body)?.[0];
    const secret = /value="(rdk_[A-Za-z0-9_-]{43})"/.exec(shown.body)?.[1];
    if (!id || !secret) throw new Error("the new key's page shows no key id or secret");
    return { id, secret };
  }

  /** Follows one redirect answer (a 303 after a form) as a browser would, with a GET. */
  follow(answer: Answer): Promise<Answer> {
    if (answer.location === null) throw new Error(`answer ${answer.status} is not a redirect`);
    return this.get(answer.location);
  }

  private async request(
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
  ) {
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      body,
      redirect: "manual",
      headers: { "x-forwarded-for": this.ip, cookie: this.cookieHeader(), ...headers },
    });
    for (const line of response.headers.getSetCookie()) this.remember(line);
    return {
      status: response.status,
      headers: response.headers,
      body: await response.text(),
      location: response.headers.get("location"),
    };
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  private remember(setCookie: string): void {
    const [pair = "", ...attributes] = setCookie.split(";");
    const [name = "", value = ""] = pair.split(/=(.*)/s).map((part) => part.trim());
    const expired = attributes.some((attribute) =>
      /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(attribute),
    );
    if (expired || value === "") this.cookies.delete(name);
    else this.cookies.set(name, value);
  }
}

export function csrfTokenOf(html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error("the page has no form with a CSRF token");
  return token;
}

/** The sign-in link in an email's text. */
export function linkIn(text: string): string {
  const link = /https?:\/\/\S+\/auth\?token=[A-Za-z0-9_-]+/.exec(text)?.[0];
  if (!link) throw new Error(`no sign-in link in: ${text}`);
  return link;
}

let clientsMade = 0;

/**
 * A client address no other client of this test process has had (from the documentation ranges,
 * 198.51.100.0/24 then 203.0.113.0/24): the mail limit per client address then counts exactly one
 * test's requests. Random addresses collided now and then, and a test found its budget half spent.
 */
export function uniqueClientIp(): string {
  clientsMade += 1;
  if (clientsMade > 500) throw new Error("more than 500 client addresses in one test process");
  return clientsMade <= 250 ? `198.51.100.${clientsMade}` : `203.0.113.${clientsMade - 250}`;
}
