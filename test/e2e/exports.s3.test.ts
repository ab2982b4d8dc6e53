/**
 * Exports into an S3-compatible bucket: the exports service with its S3 store (@aws-sdk/client-s3)
 * against s3rver, an S3 server run in this process on a free port. A whole export lands in the
 * bucket (the file and its manifest, the pages removed) and downloads through the API with the
 * rows paging the public API returns.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { waitFor } from "@rda/service-kit/testing";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { s3Store } from "../../services/exports/src/s3-store.ts";
import { withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";
import {
  call,
  type ExportsBeside,
  FAST,
  jobOf,
  pageThroughApi,
  parseCsv,
  startExportsBeside,
  waitForState,
} from "./exports.support.ts";

const DAY = 86_400;
const BUCKET = "rda-exports-test";
/** s3rver's fixed credentials. */
const CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
let stack: Stack;
let service: ExportsBeside;
let s3: S3rver;
let s3Dir: string;
let endpoint: string;

beforeAll(async () => {
  s3Dir = await mkdtemp(join(tmpdir(), "rda-s3rver-"));
  s3 = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const address = await s3.run();
  endpoint = `http://127.0.0.1:${address.port}`;
  stack = await startStack();
  const store = s3Store({
    bucket: BUCKET,
    prefix: "exports/",
    endpoint,
    region: "us-east-1",
    credentials: CREDENTIALS,
    forcePathStyle: true,
  });
  service = await startExportsBeside(stack, FAST, store);
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await stack?.stop();
  await s3?.close();
  if (s3Dir) await rm(s3Dir, { recursive: true, force: true });
});

describe("exports in an S3-compatible bucket", () => {
  it("writes the whole file and its manifest to the bucket, and serves it through the API", async () => {
    const { key } = await stack.createKey({ credits: 500 });
    const before = Math.floor(Date.now() / 1000) - 10 * DAY;
    const after = before - 20 * DAY;
    const body = { kind: "posts", subreddit: "dataisbeautiful", after, before, format: "csv", gzip: true };
    const created = await call(stack, key, "POST", "/v1/exports", { ...body, confirm: true });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const job = await waitForState(stack, key, jobOf(created).id, ["done", "failed"], 90_000);
    expect(job.state, job.reason ?? "").toBe("done");

    const client = new S3Client({
      endpoint,
      region: "us-east-1",
      credentials: CREDENTIALS,
      forcePathStyle: true,
    });
    const objectsOf = async () => {
      const listed = await client.send(
        new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `exports/${job.id}/` }),
      );
      return Object.fromEntries((listed.Contents ?? []).map((object) => [object.Key as string, object.Size]));
    };
    // The file and the manifest; the pages are removed just after the job is recorded done.
    let objects: Record<string, number | undefined> = {};
    await waitFor(async () => {
      objects = await objectsOf();
      return Object.keys(objects).length === 2;
    }, "the pages to leave the bucket");
    client.destroy();
    expect(Object.keys(objects).sort()).toEqual([
      `exports/${job.id}/${job.id}.csv.gz`,
      `exports/${job.id}/manifest.json`,
    ]);
    expect(objects[`exports/${job.id}/${job.id}.csv.gz`]).toBe(job.result?.manifest.bytes);

    const response = await fetch(`${stack.gatewayUrl}/v1/exports/${job.id}/file`, { headers: withKey(key) });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-export-sha256")).toBe(job.result?.manifest.sha256);
    const records = parseCsv(gunzipSync(Buffer.from(await response.arrayBuffer())).toString("utf8"));
    const idColumn = (records[0] as string[]).indexOf("id");
    const api = await pageThroughApi(stack, key, "posts", "subreddit=dataisbeautiful", after, before);
    expect(api.rows.length).toBeGreaterThan(100);
    expect(records.slice(1).map((record) => record[idColumn])).toEqual(api.rows.map((row) => row.id));
  });
});
