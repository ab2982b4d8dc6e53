import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSim, type TestSim } from "./support.ts";

let sim: TestSim;
let postIds: string[];
let commentIds: string[];

beforeAll(async () => {
  sim = await startTestSim();
  postIds = sim.probe.posts({}, 3).map((post) => post.id);
  const comments = await sim.get("/api/comments/search?limit=3");
  commentIds = comments.data.map((comment: { id: string }) => comment.id);
});
afterAll(() => sim.close());

describe.each([
  ["posts", "t3", () => postIds],
  ["comments", "t1", () => commentIds],
] as const)("GET /api/%s/ids", (kind, prefix, ids) => {
  const lookup = (query: string) => sim.get(`/api/${kind}/ids?${query}`);

  it("finds ids given with or without their prefix, in request order", async () => {
    const [a, b, c] = ids();
    const answer = await lookup(`ids=${c},${prefix}_${a},${b}`);
    expect(answer.data.map((item: { id: string }) => item.id)).toEqual([c, a, b]);
  });

  it("leaves unknown ids out and returns duplicates once", async () => {
    const [a] = ids();
    const answer = await lookup(`ids=${a},zzzzzzz,${a},${prefix}_1`);
    expect(answer.data.map((item: { id: string }) => item.id)).toEqual([a]);
    expect((await lookup("ids=zzzzzzz")).body).toEqual({ data: [] });
  });

  it("accepts 500 ids and answers 400 for 501", async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => (1_000_000 + i).toString(36)).join(",");
    expect((await lookup(`ids=${many(500)}`)).status).toBe(200);
    const tooMany = await lookup(`ids=${many(501)}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ data: null, error: expect.stringContaining("500") });
  });

  it.each(["", "ids=", "ids=abc!", "ids=t5_abc"])("answers 400 for %j", async (query) => {
    const answer = await lookup(query);
    expect(answer.status).toBe(400);
    expect(answer.body.data).toBeNull();
  });

  it("projects the requested fields", async () => {
    const answer = await lookup(`ids=${ids().join(",")}&fields=id,score,created_utc`);
    for (const item of answer.data) expect(Object.keys(item)).toEqual(["id", "score", "created_utc"]);
    expect((await lookup(`ids=${ids()[0]}&fields=permalink`)).status).toBe(400);
  });
});

describe("ids of items that have not arrived yet", () => {
  it("are absent until the clock reaches their created_utc", async () => {
    const future = sim.corpus.posts.count - 1;
    const id = sim.corpus.posts.idNum[future]!.toString(36);
    expect((await sim.get(`/api/posts/ids?ids=${id}`)).body).toEqual({ data: [] });
    const saved = sim.clock.seconds;
    sim.clock.seconds = sim.corpus.anchor + sim.corpus.posts.created[future]!;
    try {
      expect((await sim.get(`/api/posts/ids?ids=${id}`)).data[0].id).toBe(id);
    } finally {
      sim.clock.seconds = saved;
    }
  });
});
