/**
 * The object store in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, …) through
 * `@aws-sdk/client-s3`: every name becomes a key under an optional prefix. Chosen by
 * EXPORTS_S3_BUCKET (main.ts; docs/operations.md lists the settings); the filesystem store stays
 * the default. Many S3-compatible servers do not take the SDK's newer default checksums, so
 * checksums are sent and checked only where S3 requires them, unless configured otherwise.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import type { ObjectStore } from "./object-store.ts";

export interface S3StoreSettings {
  readonly bucket: string;
  /** Keys start with this (e.g. `exports/`); empty for the bucket's root. */
  readonly prefix?: string;
  /** An S3-compatible server's URL; unset for AWS itself. */
  readonly endpoint?: string;
  readonly region?: string;
  /** Unset: the SDK's default credential chain (environment, instance or pod role, …). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** `https://host/bucket/key` instead of `https://bucket.host/key`: most S3-compatible servers need it. */
  readonly forcePathStyle?: boolean;
  /** Send and check the SDK's default checksums on every request (AWS S3 takes them; many others do not). */
  readonly alwaysChecksum?: boolean;
}

export function s3Store(settings: S3StoreSettings): ObjectStore {
  const client = new S3Client({
    region: settings.region ?? "us-east-1",
    ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
    ...(settings.credentials === undefined ? {} : { credentials: settings.credentials }),
    forcePathStyle: settings.forcePathStyle ?? false,
    requestChecksumCalculation: settings.alwaysChecksum ? "WHEN_SUPPORTED" : "WHEN_REQUIRED",
    responseChecksumValidation: settings.alwaysChecksum ? "WHEN_SUPPORTED" : "WHEN_REQUIRED",
  });
  const Bucket = settings.bucket;
  const prefix = settings.prefix ?? "";
  const keyOf = (name: string) => {
    if (name.split("/").some((part) => part === ".." || part === "." || part === ""))
      throw new Error(`object name outside the store: ${name}`);
    return `${prefix}${name}`;
  };
  const missing = (error: unknown) => {
    const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
    return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404;
  };
  /** Every key under a folder, page by page. */
  async function keysUnder(folder: string): Promise<string[]> {
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket, Prefix: `${keyOf(folder)}/`, ContinuationToken }),
      );
      for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken !== undefined);
    return keys;
  }
  return {
    async put(name, data) {
      await client.send(new PutObjectCommand({ Bucket, Key: keyOf(name), Body: data }));
    },
    async putFile(name, localPath) {
      const { size } = await stat(localPath);
      // One PUT of a known length (up to 5 GiB), streamed from disk.
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: keyOf(name),
          Body: createReadStream(localPath),
          ContentLength: size,
        }),
      );
    },
    async get(name) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(name) }));
        return object.Body === undefined
          ? Buffer.alloc(0)
          : Buffer.from(await object.Body.transformToByteArray());
      } catch (error) {
        if (missing(error)) return undefined;
        throw error;
      }
    },
    async open(name) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(name) }));
        return object.Body as Readable | undefined;
      } catch (error) {
        if (missing(error)) return undefined;
        throw error;
      }
    },
    async size(name) {
      try {
        return (await client.send(new HeadObjectCommand({ Bucket, Key: keyOf(name) }))).ContentLength;
      } catch (error) {
        if (missing(error)) return undefined;
        throw error;
      }
    },
    async list(folder) {
      return (await keysUnder(folder))
        .map((key) => key.slice(prefix.length))
        .filter((name) => name.lastIndexOf("/") === folder.length)
        .sort();
    },
    async removeAll(folder) {
      for (const Key of await keysUnder(folder)) await client.send(new DeleteObjectCommand({ Bucket, Key }));
    },
  };
}
