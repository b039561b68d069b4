import { Stream } from 'node:stream';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { RequestLogger, type Logger } from './logger.js';
import { verifyIdentity, type SignedRequest } from './auth.js';
import { hasMessage, localizeMessage } from '@aigw/contracts';
import { shapedErrorHandler } from './error-handler.js';
import { answerLocale } from './error-shapes.js';
import { createOutageLog, type OutageLog } from './outage-log.js';
import { jsonShapeProblem } from './json-limits.js';
import { UserError } from './errors.js';
import { collectOpenApiRoutes } from './openapi/openapi.js';
import { newRequestId } from './request-ids.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's outage log: every error handler warns about a dependency away through it, once a second per kind. */
    outageLog: OutageLog;
  }
}

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, Logger, ZodTypeProvider>;

export interface CreateAppOptions {
  logger: Logger;
  /** Largest accepted body; larger ones get 413. */
  bodyLimitBytes: number;
  /**
   * Standalone services: verify the identity the gateway signed with this secret and set
   * `request.auth` from it. Omit in the all-in-one process, where the gateway sets it directly.
   */
  internalSecret?: string;
  /** Trust X-Forwarded-* from a proxy in front (the gateway behind an ingress). */
  trustProxy?: boolean;
}

const requestIdPattern = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * Request id: a new one (time-ordered: request-ids.ts), or the gateway's when the gateway signed
 * the request (one id across the hop). A client never chooses it: the relay's usage record is
 * keyed and deduplicated by it.
 */
function requestId(request: SignedRequest, internalSecret: string | undefined): string {
  const incoming = request.headers['x-request-id'];
  const forwarded =
    internalSecret !== undefined && typeof incoming === 'string' && requestIdPattern.test(incoming) && verifyIdentity(internalSecret, request) !== undefined;
  return forwarded ? incoming : newRequestId();
}

/**
 * A Fastify app with what every service stands on: the zod type provider, request ids (sent back
 * as X-Oneapi-Request-Id on every answer), the error handler answering in the path's shape,
 * `request.auth`, a body limit, console messages in the caller's language, and the route
 * collection of its OpenAPI document. Service plugins register on it.
 */
export function createApp(options: CreateAppOptions): App {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: options.bodyLimitBytes,
    genReqId: (request) => requestId(request, options.internalSecret),
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    // request.log becomes a pino child only when something is written through it (logger.ts).
    childLoggerFactory: (logger, bindings, childOptions) => new RequestLogger(logger as Logger, bindings, childOptions) as unknown as FastifyBaseLogger,
    trustProxy: options.trustProxy ?? false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Before any plugin: swagger collects the routes as they are registered (the OpenAPI document).
  collectOpenApiRoutes(app);
  app.decorateRequest('auth', null);
  app.decorateRequest('signedIp', null);
  app.decorate('outageLog', createOutageLog());

  const secret = options.internalSecret;
  if (secret) {
    app.addHook('onRequest', async (request) => {
      const identity = verifyIdentity(secret, request);
      request.auth = identity?.auth ?? null;
      request.signedIp = identity?.ip ?? null;
    });
  }

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Oneapi-Request-Id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, url: request.routeOptions.url ?? 'unmatched', statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });

  // Before any schema or handler walks the body: a too deep or too large one is refused (test D3).
  app.addHook('preValidation', async (request) => {
    // A proxied body (the distributed gateway) is the request stream itself, not parsed JSON.
    if (request.body instanceof Stream) return;
    const problem = jsonShapeProblem(request.body);
    if (problem) throw new UserError(problem.message, 'invalid_request', 400, problem.field || undefined);
  });

  // A console answer's `message` from the catalogue is worded in the caller's language (section 3.12).
  app.addHook('preSerialization', (request, _reply, payload: unknown, done) => {
    const message = (payload as { message?: unknown } | null)?.message;
    if (typeof message !== 'string' || !hasMessage(message)) return done(null, payload);
    done(null, { ...(payload as object), message: localizeMessage(message, answerLocale(request)) });
  });

  app.setErrorHandler(shapedErrorHandler);
  return app;
}
