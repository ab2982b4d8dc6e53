/**
 * Where export files (and the pages of a running job) are kept: one small interface, so a
 * filesystem directory (the default, a volume every replica mounts) and an S3-compatible bucket
 * (s3-store.ts) are interchangeable. Names are relative paths such as `exp_…/parts/000001.jsonl`; the store never
 * sees a name from a caller, only ones the service builds from an export id.
 */
import { createReadStream } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import type { Readable } from "node:stream";

export interface ObjectStore {
  /** Writes the whole object at once; a reader sees the old object or the new one, never half. */
  put(name: string, data: Uint8Array | string): Promise<void>;
  /**
   * Stores a finished local file (an assembled export, written on disk so memory stays bounded)
   * under `name`, moving or uploading it; the local file may be gone afterwards.
   */
  putFile(name: string, localPath: string): Promise<void>;
  get(name: string): Promise<Buffer | undefined>;
  /** A stream of the object, for downloads. */
  open(name: string): Promise<Readable | undefined>;
  size(name: string): Promise<number | undefined>;
  /** Names under a prefix (a folder), sorted. */
  list(prefix: string): Promise<string[]>;
  /** Removes everything under a prefix. */
  removeAll(prefix: string): Promise<void>;
}

export function filesystemStore(root: string): ObjectStore {
  const base = resolve(root);
  const pathOf = (name: string) => {
    const path = resolve(base, name);
    if (!path.startsWith(base + sep)) throw new Error(`object name outside the store: ${name}`);
    return path;
  };
  const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";
  return {
    async put(name, data) {
      const path = pathOf(name);
      await mkdir(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
      await writeFile(temporary, data);
      await rename(temporary, path);
    },
    async putFile(name, localPath) {
      const path = pathOf(name);
      await mkdir(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
      try {
        await rename(localPath, temporary);
      } catch (error) {
        // The temporary directory is often another filesystem than the store's volume.
        if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
        await copyFile(localPath, temporary);
      }
      await rename(temporary, path);
    },
    async get(name) {
      try {
        return await readFile(pathOf(name));
      } catch (error) {
        if (missing(error)) return undefined;
        throw error;
      }
    },
    async open(name) {
      const size = await this.size(name);
      return size === undefined ? undefined : createReadStream(pathOf(name));
    },
    async size(name) {
      try {
        return (await stat(pathOf(name))).size;
      } catch (error) {
        if (missing(error)) return undefined;
        throw error;
      }
    },
    async list(prefix) {
      try {
        const entries = await readdir(pathOf(prefix));
        return entries
          .filter((entry) => !entry.endsWith(".tmp"))
          .sort()
          .map((entry) => join(prefix, entry));
      } catch (error) {
        if (missing(error)) return [];
        throw error;
      }
    },
    async removeAll(prefix) {
      await rm(pathOf(prefix), { recursive: true, force: true });
    },
  };
}
