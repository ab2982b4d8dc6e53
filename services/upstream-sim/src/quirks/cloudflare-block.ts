/** The page Cloudflare answers a blocked client with: 403, HTML, never JSON (docs/upstream.md#assumptions). */
import type { FastifyReply } from "fastify";

export function sendCloudflareBlock(reply: FastifyReply): FastifyReply {
  const page = [
    "<!DOCTYPE html>",
    '<html lang="en-US"><head><title>Attention Required! | Cloudflare</title></head>',
    '<body><div id="cf-wrapper"><h1 data-translate="block_headline">Sorry, you have been blocked</h1>',
    "<h2>You are unable to access arctic-shift.photon-reddit.com</h2>",
    "<p>This website is using a security service to protect itself from online attacks.</p>",
    "<p>Cloudflare Ray ID: 8f403a1b2c3d4e5f</p></div></body></html>",
  ].join("\n");
  return reply.code(403).type("text/html; charset=UTF-8").send(page);
}
