/**
 * The portal's cookies: the session id, the CSRF secret and the device id of a browser that signed
 * in before (store/devices.ts). All are HttpOnly and SameSite=Lax;
 * served over TLS they are Secure and carry the `__Host-` prefix, which a browser accepts only from
 * this very origin (no Domain, Path=/, Secure), so a sibling subdomain cannot plant or overwrite them.
 */
import type { CookieSerializeOptions } from "@fastify/cookie";
import type { FastifyReply } from "fastify";
import type { CookieSettings } from "../context.ts";

export function cookieSettings(secure: boolean): CookieSettings {
  const prefix = secure ? "__Host-" : "";
  return {
    session: `${prefix}rda_session`,
    csrf: `${prefix}rda_csrf`,
    device: `${prefix}rda_device`,
    secure,
  };
}

export function cookieAttributes(settings: CookieSettings): CookieSerializeOptions {
  return { path: "/", httpOnly: true, sameSite: "lax", secure: settings.secure };
}

export function setSessionCookie(reply: FastifyReply, settings: CookieSettings, id: string, ttlMs: number) {
  reply.setCookie(settings.session, id, {
    ...cookieAttributes(settings),
    maxAge: Math.floor(ttlMs / 1000),
  });
}

export function clearSessionCookie(reply: FastifyReply, settings: CookieSettings) {
  reply.clearCookie(settings.session, cookieAttributes(settings));
}

export function setDeviceCookie(
  reply: FastifyReply,
  settings: CookieSettings,
  id: string,
  ttlSeconds: number,
) {
  reply.setCookie(settings.device, id, { ...cookieAttributes(settings), maxAge: ttlSeconds });
}
