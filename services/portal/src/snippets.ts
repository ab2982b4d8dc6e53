/** The "first request" snippets shown with a new secret, with the key and the API's address filled in. */

export interface Snippets {
  readonly curl: string;
  readonly sdk: string;
  /** `npm install <portal>/sdk/rda-sdk-<version>.tgz`; undefined when the portal has no tarball. */
  readonly install?: string;
}

/** A community every corpus has; any name works. */
const EXAMPLE_SUBREDDIT = "typescript";

/** `sdkTarballUrl`: where this portal serves the SDK's tarball (routes/sdk.ts), when it has one. */
export function firstRequestSnippets(apiUrl: string, key: string, sdkTarballUrl?: string): Snippets {
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
  return { curl, sdk, install };
}
