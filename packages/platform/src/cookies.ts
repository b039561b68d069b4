import type { FastifyReply, FastifyRequest } from 'fastify';

/** The console's session cookie (name kept from the established product). */
export const SESSION_COOKIE = 'session';

/** Reads one cookie from the Cookie header. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() === name) {
      try {
        return decodeURIComponent(part.slice(separator + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export interface CookieOptions {
  maxAgeSeconds: number;
  /** Send only over HTTPS. */
  secure: boolean;
}

/** Sets an HttpOnly, SameSite=Strict cookie for the whole site (rule R12). */
export function setCookie(reply: FastifyReply, name: string, value: string, options: CookieOptions): void {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', `Max-Age=${options.maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict'];
  if (options.secure) parts.push('Secure');
  reply.header('set-cookie', parts.join('; '));
}

export function clearCookie(reply: FastifyReply, name: string): void {
  reply.header('set-cookie', `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`);
}
