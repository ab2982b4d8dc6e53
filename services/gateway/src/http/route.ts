/** A route as the wiring file lists it: the spec's path and a handler built from the context. */
import type { OperationContract } from "@rda/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { GatewayContext } from "../context.ts";

export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

export interface GatewayRoute {
  /** The path as the spec and the OpenAPI document write it (`/v1/users/{name}`). */
  readonly path: string;
  readonly operation: OperationContract;
  readonly build: (ctx: GatewayContext) => Handler;
}

/** `/v1/users/{name}` → `/v1/users/:name`, fastify's syntax. */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

export type RawParams = Record<string, string | string[] | undefined>;
