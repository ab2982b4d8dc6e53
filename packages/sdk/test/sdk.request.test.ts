import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGateway, startFakeGateway } from "../../../test/support/fake-gateway.ts";
import { createGatewayClient, type GatewayClient } from "../src/index.ts";

const KEY = "rdk_default";
const OTHER_KEY = "rdk_other";

describe("gateway client requests", () => {
  let fake: FakeGateway;
  let client: GatewayClient;

  beforeAll(async () => {
    fake = await startFakeGateway({ [KEY]: 100, [OTHER_KEY]: 100 });
    client = createGatewayClient({ baseUrl: fake.url, apiKey: KEY });
  });
  afterAll(async () => {
    await client.close();
    await fake.close();
  });

  it("percent-encodes path parameters, dots included, so a name cannot leave its path segment", async () => {
    await client.getUserProfile({ name: "../account" });
    expect(fake.seen.at(-1)?.url).toBe("/v1/users/%2E%2E%2Faccount");
  });

  it("sends only the given query parameters, encoded, and omits undefined ones", async () => {
    await client.listPosts({ subreddit: "a&b=c", q: "two words", limit: 5, author: undefined });
    expect(fake.seen.at(-1)?.url).toBe("/v1/posts?subreddit=a%26b%3Dc&q=two+words&limit=5");
  });

  it("sends the per-call key instead of the client's default when one is given", async () => {
    const result = await client.getAccount({ apiKey: OTHER_KEY, requestId: "req-1" });
    expect(fake.seen.at(-1)?.headers["x-api-key"]).toBe(OTHER_KEY);
    expect(fake.seen.at(-1)?.headers["x-request-id"]).toBe("req-1");
    expect(result.ok).toBe(true);
  });

  it("keeps a path prefix of the base URL in front of every operation's path", async () => {
    const prefixed = createGatewayClient({ baseUrl: `${fake.url}/api/`, apiKey: KEY });
    await prefixed.getAccount();
    expect(fake.seen.at(-1)?.url).toBe("/api/v1/account");
    await prefixed.close();
  });

  it("returns the 200 body unchanged as the value, with _service as sent", async () => {
    const result = await client.listComments({ author: "someone", limit: 2 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.data).toHaveLength(2);
    expect(result.value._service).toMatchObject({ credits_used: 1, has_more: true });
    expect(result.value._service.cursor).toBe(result.value.data[1]?.created_utc);
  });
});
