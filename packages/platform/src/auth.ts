import crypto from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { minimumRole, msg, type Access } from '@aigw/contracts';
import { bodyLimitFor } from './body-limits.js';
import { ForbiddenError, UnauthorizedError } from './errors.js';

/** The caller of a console route, as the gateway authenticated it. */
export interface AuthContext {
  userId: number;
  username: string;
  role: number;
  group: string;
  /**
   * sha256 of the session cookie when the caller came with one (absent for access tokens): what
   * a step-up (`POST /api/verify`) is recorded against, so it belongs to one browser session.
   */
  session?: string;
  /**
   * The super admin still has the factory password while the server is reachable beyond this
   * machine (rule R8): only routes declaring `allowedBeforePasswordChange` (and public ones)
   * are open until the password is changed.
   */
  passwordChangeRequired?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the gateway (in-process) or from the signed internal headers; null when anonymous. */
    auth: AuthContext | null;
    /** The client's IP the gateway signed into the internal headers (between processes); null without them. */
    signedIp: string | null;
  }
  interface FastifyContextConfig {
    /** Who may call the route (rule R11: every service route declares it). */
    access?: Access;
    /** Open to a super admin who must change the factory password first (reading the own profile, changing the password). */
    allowedBeforePasswordChange?: boolean;
  }
}

/** Headers carrying the forwarded identity between the gateway and a service process. */
export const internalHeaders = {
  identity: 'x-aigw-identity',
  signature: 'x-aigw-signature',
} as const;

/** Forwarded identities older than this are refused (limits replay). */
const maxSkewMs = 60_000;

interface SignedIdentity {
  auth: AuthContext | null;
  /** Client IP as the gateway saw it. */
  ip: string;
  /** Signing time, ms since epoch. */
  ts: number;
}

function sign(secret: string, method: string, url: string, payload: string): string {
  return crypto.createHmac('sha256', secret).update(`${method}\n${url}\n${payload}`).digest('base64url');
}

/** Headers the gateway adds to a proxied request: the identity, bound to method and URL, timestamped. */
export function signIdentity(secret: string, method: string, url: string, auth: AuthContext | null, ip: string): Record<string, string> {
  const payload = Buffer.from(JSON.stringify({ auth, ip, ts: Date.now() } satisfies SignedIdentity)).toString('base64url');
  return { [internalHeaders.identity]: payload, [internalHeaders.signature]: sign(secret, method, url, payload) };
}

/** What a signature covers: the raw request will do (the request id is chosen before Fastify's request exists). */
export interface SignedRequest {
  method?: string;
  url?: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Verifies the forwarded identity. Returns undefined when the headers are absent or invalid,
 * so the request is treated as anonymous.
 */
export function verifyIdentity(secret: string, request: SignedRequest): SignedIdentity | undefined {
  const payload = request.headers[internalHeaders.identity];
  const signature = request.headers[internalHeaders.signature];
  if (typeof payload !== 'string' || typeof signature !== 'string') return undefined;
  const expected = Buffer.from(sign(secret, request.method ?? '', request.url ?? '', payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return undefined;
  try {
    const identity = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as SignedIdentity;
    if (Math.abs(Date.now() - identity.ts) > maxSkewMs) return undefined;
    return identity;
  } catch {
    return undefined;
  }
}

export interface DeclaredRoute {
  service: string;
  method: string;
  url: string;
  access: Access;
}

const routeTables = new WeakMap<object, DeclaredRoute[]>();

/** Every service route of an app with its declared access: the authorization matrix tests walk it (rule R11). */
export function declaredRoutes(app: { server: object }): DeclaredRoute[] {
  return [...(routeTables.get(app.server) ?? [])];
}

/** Why everything else is refused to a super admin with the factory password (rule R8), as `msg(id)`. */
export const passwordChangeRequiredMessage = msg('platform.password_change_required');

/** Checks the route's declared access against `request.auth`; throws 401 or 403. */
export function assertAccess(request: FastifyRequest, access: Access): void {
  if (access === 'public') return;
  if (!request.auth) throw new UnauthorizedError();
  if (request.auth.role < minimumRole[access]) throw new ForbiddenError();
  if (request.auth.passwordChangeRequired && !request.routeOptions.config.allowedBeforePasswordChange) {
    throw new ForbiddenError(passwordChangeRequiredMessage);
  }
}

/** The authenticated caller; for routes whose access is not 'public'. */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new UnauthorizedError();
  return request.auth;
}

/**
 * Called at the top of every service plugin: every route registered in it must declare
 * `config.access` (the app refuses to start otherwise), and the access is enforced as the
 * request arrives, before its body is read or validated (so a refused caller learns nothing
 * about the route's input). A route without its own `bodyLimit` gets its access class's cap
 * (`bodyLimits`: anonymous routes small), checked before its body is parsed.
 */
export function useAccessControl(app: FastifyInstance, service: string): void {
  const table = routeTables.get(app.server) ?? [];
  routeTables.set(app.server, table);
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (!access) throw new Error(`${service}: route ${String(route.method)} ${route.url} declares no config.access`);
    route.bodyLimit ??= bodyLimitFor(access);
    for (const method of [route.method].flat()) if (method !== 'HEAD') table.push({ service, method, url: route.url, access });
  });
  app.addHook('onRequest', async (request) => {
    assertAccess(request, request.routeOptions.config.access ?? 'root');
  });
}
