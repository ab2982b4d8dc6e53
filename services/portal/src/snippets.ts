/** The "first request" snippets shown with a new secret, with the key and the API's address filled in. */

export interface Snippets {
  readonly curl: string;
  readonly sdk: string;
  /** `npm install <portal>/sdk/rda-sdk-<version>.tgz`; undefined when the portal has no tarball. */
  readonly install?: string;
  /** The same first request with the Python client (`rda`). */
  readonly python: string;
  /** `pip install <portal>/sdk/rda_client-<version>-py3-none-any.whl`; undefined when the portal has no wheel. */
  readonly pythonInstall?: string;
}

/** A community every corpus has; any name works. */
const EXAMPLE_SUBREDDIT = "typescript";

/**
 * `sdkTarballUrl`, `pythonWheelUrl`: where this portal serves the SDKs (routes/sdk.ts), when it has
 * them.
 */
export function firstRequestSnippets(
  apiUrl: string,
  key: string,
  sdkTarballUrl?: string,
  pythonWheelUrl?: string,
): Snippets {
  const curl = [
    `curl -s -H "x-api-key: ${key}" \\`,
    `  "${apiUrl}/v1/posts?subreddit=${EXAMPLE_SUBREDDIT}&limit=5"`,
  ].join("\n");
  const sdk = [
    `import { createGatewayClient } from "@rda/sdk";`,
    ``,
    `const api = createGatewayClient({`,
    `  baseUrl: "${apiUrl}",`,
    `  apiKey: "${key}",`,
    `});`,
    `const page = await api.listPosts({ subreddit: "${EXAMPLE_SUBREDDIT}", limit: 5 });`,
    `if (page.ok) console.log(page.value.data.map((post) => post.title));`,
    `else console.error(page.error.message);`,
  ].join("\n");
  const install = sdkTarballUrl === undefined ? undefined : `npm install ${sdkTarballUrl}`;
  const python = [
    `from rda import Client`,
    ``,
    `client = Client("${key}", base_url="${apiUrl}")`,
    `page = client.list_posts(subreddit="${EXAMPLE_SUBREDDIT}", limit=5)`,
    `print([post["title"] for post in page], page.credits_remaining)`,
  ].join("\n");
  const pythonInstall = pythonWheelUrl === undefined ? undefined : `pip install ${pythonWheelUrl}`;
  return { curl, sdk, install, python, pythonInstall };
}

/**
 * A receiver that checks a monitor's webhooks with the SDK's `verifyWebhook` (Standard Webhooks, over
 * the `standardwebhooks` package). The secret is read from the environment rather than written into
 * the program, so the snippet can be pasted into a repository as it is.
 */
export function webhookVerificationSnippet(): string {
  return [
    `import { createServer } from "node:http";`,
    `import { verifyWebhook } from "@rda/sdk";`,
    ``,
    `// The whsec_… secret shown above.`,
    `const secret = process.env.RDA_WEBHOOK_SECRET;`,
    ``,
    `createServer((request, response) => {`,
    `  const chunks = [];`,
    `  request.on("data", (chunk) => chunks.push(chunk));`,
    `  request.on("end", () => {`,
    `    try {`,
    `      // The body exactly as received: the signature covers its bytes.`,
    `      const event = verifyWebhook(Buffer.concat(chunks), request.headers, secret);`,
    `      console.log(event.type, event.data.delivery_id, event.data.items.length);`,
    `      response.writeHead(204).end();`,
    `    } catch {`,
    `      response.writeHead(400).end();`,
    `    }`,
    `  });`,
    `}).listen(3000);`,
  ].join("\n");
}

/** The same receiver with the Python client's `verify_webhook` (Standard Webhooks, standard library only). */
export function pythonWebhookVerificationSnippet(): string {
  return [
    `import os`,
    `from http.server import BaseHTTPRequestHandler, HTTPServer`,
    `from rda import WebhookVerificationError, verify_webhook`,
    ``,
    `secret = os.environ["RDA_WEBHOOK_SECRET"]  # the whsec_… secret shown above`,
    ``,
    `class Receiver(BaseHTTPRequestHandler):`,
    `    def do_POST(self):`,
    `        body = self.rfile.read(int(self.headers["content-length"]))`,
    `        try:`,
    `            event = verify_webhook(body, self.headers, secret)`,
    `            print(event["type"], event["data"]["delivery_id"], len(event["data"].get("items", [])))`,
    `            self.send_response(204)`,
    `        except WebhookVerificationError:`,
    `            self.send_response(400)`,
    `        self.end_headers()`,
    ``,
    `HTTPServer(("", 3000), Receiver).serve_forever()`,
  ].join("\n");
}
