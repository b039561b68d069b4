import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { localizeMessage, msg } from '@aigw/contracts';
import {
  announcesBody,
  answerLocale,
  createApp,
  errorShapeFor,
  internalHeaders,
  isLoopbackHost,
  OperationalError,
  readCookie,
  registerHttpMetrics,
  reportSchedules,
  sendError,
  SESSION_COOKIE,
  TooManyRequestsError,
  type App,
  type AuthContext,
  type Infrastructure,
  type Logger,
} from '@aigw/platform';
import billingPlugin, { billingSettings } from '@aigw/billing/plugin';
import channelsPlugin, { channelsSettings } from '@aigw/channels/plugin';
import identityPlugin, { identitySettings, type OAuthEndpoints } from '@aigw/identity/plugin';
import notifierPlugin, { notifierSettings } from '@aigw/notifier/plugin';
import relayPlugin, { relaySettings } from '@aigw/relay/plugin';
import { isDistributed, withGeneratedSecrets, type GatewayConfig } from './config.js';
import { createCredentialResolver, type CredentialResolver } from './credentials.js';
import { registerOpenApiRoutes } from './openapi.js';
import { registerProxies } from './proxy.js';
import { registerUpgradeProxy } from './upgrade-proxy.js';
import { allow, isCriticalPath, isGloballyLimited } from './rate-limit.js';
import { isPostOnly } from './post-only.js';
import { isRelayPath } from './route-table.js';
import { corsPreflight, securityHeaders } from './security.js';
import { answerUnknownApiPath, registerConsole } from './static.js';

export interface GatewayOptions {
  config: GatewayConfig;
  logger: Logger;
  infra: Infrastructure;
  version: string;
  /** Folder of the built console. */
  webDistDir?: string;
  /** Database schema per service (tests isolate themselves with their own). */
  schemas?: Partial<Record<'identity' | 'billing' | 'channels' | 'relay' | 'notifier', string>>;
  /** All-in-one: where identity reaches GitHub and LinuxDO. Only tests set it (a loopback fake). */
  oauthEndpoints?: Partial<OAuthEndpoints>;
}

/**
 * The public entry. All-in-one: every service plugin is mounted in this process on the shared
 * infrastructure. Distributed: each prefix is proxied to its service process.
 */
export async function buildGateway(options: GatewayOptions): Promise<App> {
  const { config, logger, infra } = options;
  const app = createApp({ logger, bodyLimitBytes: config.BODY_LIMIT_BYTES, trustProxy: config.TRUST_PROXY });
  // Every answer of the process, the services' routes included all-in-one (metrics on METRICS_PORT only: main.ts).
  registerHttpMetrics(app);
  const resolver = await createCredentialResolver({ bus: infra.bus, logger, ttlMs: config.CREDENTIAL_CACHE_TTL_MS });
  let draining = false;

  /** Per-IP limits: the critical ones (login, registration, verification, reset, OAuth), then the whole console API but the payment notify. */
  const enforceRateLimits = async (request: FastifyRequest) => {
    const path = request.url.split('?', 1)[0]!;
    if (
      isCriticalPath(path) &&
      !(await allow(infra.kv, { name: 'critical', max: config.CRITICAL_RATE_LIMIT, windowMs: config.CRITICAL_RATE_LIMIT_WINDOW_MS }, request.ip))
    ) {
      throw new TooManyRequestsError();
    }
    if (
      isGloballyLimited(path) &&
      !(await allow(infra.kv, { name: 'api', max: config.GLOBAL_API_RATE_LIMIT, windowMs: config.GLOBAL_API_RATE_LIMIT_WINDOW_MS }, request.ip))
    ) {
      throw new TooManyRequestsError();
    }
  };

  app.addHook('onRequest', async (request, reply) => {
    // Identity headers are ours to set; a client sending them is ignored.
    delete request.headers[internalHeaders.identity];
    delete request.headers[internalHeaders.signature];
    const length = Number(request.headers['content-length'] ?? 0);
    // Answered here, past the error handler: worded in the caller's language now.
    const worded = (text: string) => localizeMessage(text, answerLocale(request));
    if (length > config.BODY_LIMIT_BYTES) {
      return sendError(reply, errorShapeFor(request.url), { statusCode: 413, message: worded(msg('common.body_too_large')), code: 'request_too_large' });
    }
    await corsPreflight(request, reply);
    if (reply.sent) return;
    // Before the unknown-path answer: a GET of a POST-only path may have no GET route at all.
    if ((request.method === 'GET' || request.method === 'HEAD') && isPostOnly(request.url)) {
      reply.header('allow', 'POST');
      return sendError(reply, errorShapeFor(request.url), {
        statusCode: 405,
        message: worded(msg('gateway.use_post', { path: request.url.split('?', 1)[0]! })),
        code: 'method_not_allowed',
      });
    }
    // An unknown API path is answered as it arrives: its body is never read.
    if (request.is404) {
      if (announcesBody(request.headers)) reply.header('connection', 'close');
      const answered = answerUnknownApiPath(request, reply);
      if (answered) return answered;
    }
    await enforceRateLimits(request);
    request.auth = isRelayPath(request.url) ? null : await authenticate(request, resolver);
  });
  app.addHook('onSend', securityHeaders);

  app.get('/healthz', async () => ({ status: 'ok' }));
  // A missing schedule is reported (degraded detail), never a reason to leave rotation: the jobs
  // adapter re-creates it on its next check (30 s), and every replica shares the one Redis, so
  // failing readiness would take all pods out at once, an outage over background work that heals
  // by itself. Only draining makes the gateway unready.
  app.get('/readyz', async (_request, reply) =>
    draining ? reply.status(503).send({ status: 'draining' }) : { status: 'ready', schedules: await reportSchedules(infra.jobs) },
  );
  app.addHook('preClose', async () => {
    draining = true;
    // Job handlers use the plugins' databases and pools, which their onClose hooks close.
    await infra.jobs.stopWorking();
  });

  if (isDistributed(config)) {
    await registerProxies(
      app,
      {
        identity: config.IDENTITY_URL!,
        billing: config.BILLING_URL!,
        channels: config.CHANNELS_URL!,
        relay: config.RELAY_URL!,
        notifier: config.NOTIFIER_URL!,
      },
      config.INTERNAL_SECRET!,
    );
    registerUpgradeProxy(app, config.RELAY_URL!);
  } else {
    const services = withGeneratedSecrets(config);
    const storage = { infra, databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR };
    await app.register(identityPlugin, {
      ...storage,
      schema: options.schemas?.identity,
      version: options.version,
      oauthEndpoints: options.oauthEndpoints,
      reachableBeyondLoopback: !isLoopbackHost(config.HOST),
      ...identitySettings(services),
    });
    await app.register(billingPlugin, { ...storage, schema: options.schemas?.billing, ...billingSettings(services) });
    await app.register(channelsPlugin, { ...storage, schema: options.schemas?.channels, ...channelsSettings(services) });
    await app.register(relayPlugin, { ...storage, schema: options.schemas?.relay, ...relaySettings(services) });
    await app.register(notifierPlugin, { ...storage, schema: options.schemas?.notifier, ...notifierSettings(services) });
  }
  await registerOpenApiRoutes(app, config, options.version);
  await registerConsole(app, options.webDistDir);
  app.addHook('onClose', () => resolver.close());
  return app;
}

/**
 * The console caller: a session cookie or a system access token, and the New-Api-User header
 * naming the same user (the established product's CSRF guard). Anything else is anonymous;
 * services answer 401 on routes that need a user.
 */
async function authenticate(request: FastifyRequest, resolver: CredentialResolver): Promise<AuthContext | null> {
  const candidates: Array<{ kind: 'session' | 'access_token'; secret: string }> = [];
  const cookie = readCookie(request, SESSION_COOKIE);
  if (cookie) candidates.push({ kind: 'session', secret: cookie });
  const token = request.headers.authorization?.replace(/^Bearer\s+/i, '').trim();
  if (token && !token.startsWith('sk-')) candidates.push({ kind: 'access_token', secret: token });
  const claimed = request.headers['new-api-user'];
  if (candidates.length === 0 || typeof claimed !== 'string') return null;
  for (const { kind, secret } of candidates) {
    if (secret.length > 256) continue;
    let principal;
    try {
      principal = await resolver.resolve(kind, secret);
    } catch (error) {
      throw new OperationalError('identity did not answer the credential lookup', 'identity_unavailable', 503, error);
    }
    if (principal && String(principal.user_id) === claimed.trim()) {
      return {
        userId: principal.user_id,
        username: principal.username,
        role: principal.role,
        group: principal.group,
        ...(principal.password_change_required ? { passwordChangeRequired: true } : {}),
        ...(kind === 'session' ? { session: crypto.createHash('sha256').update(secret).digest('hex') } : {}),
      };
    }
  }
  return null;
}
