import crypto from 'node:crypto';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from './logger.js';
import { AppError } from './errors.js';
import { verifyIdentity } from './auth.js';

export type App = FastifyInstance<any, any, any, Logger, ZodTypeProvider>;

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

/** Request id: the caller's (the gateway forwards its own) when well-formed, else a new one. */
function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && requestIdPattern.test(incoming) ? incoming : crypto.randomUUID();
}

/**
 * A Fastify app with what every service stands on: the zod type provider, request ids, the
 * envelope-aware error handler, `request.auth`, and a body limit. Service plugins register on it.
 */
export function createApp(options: CreateAppOptions): App {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: options.bodyLimitBytes,
    genReqId: requestId,
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    trustProxy: options.trustProxy ?? false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('auth', null);

  const secret = options.internalSecret;
  if (secret) {
    app.addHook('onRequest', async (request) => {
      request.auth = verifyIdentity(secret, request)?.auth ?? null;
    });
  }

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Oneapi-Request-Id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ method: request.method, url: request.routeOptions.url ?? 'unmatched', statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  });

  app.setErrorHandler(envelopeErrorHandler);
  return app as unknown as App;
}

/** Maps any error to the console envelope with the right HTTP status; a 5xx never echoes internals. */
export function envelopeErrorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const { statusCode, message } = describeError(error, request);
  void reply.status(statusCode).send({ success: false, message });
}

/** Status and user-facing message for an error, shared by the envelope and the provider error shapes. */
export function describeError(error: FastifyError | Error, request: FastifyRequest): { statusCode: number; message: string; code: string } {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const message = error.validation
      .map((issue) => {
        const field = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
        const where = field || (issue.params as { issue?: { path?: PropertyKey[] } })?.issue?.path?.join('.') || error.validationContext;
        return where ? `${where}: ${issue.message}` : issue.message;
      })
      .join('; ');
    return { statusCode: 200, message, code: 'invalid_request' };
  }
  if (error instanceof AppError) {
    if (error.report) request.log.error({ err: error }, error.message);
    const message = error.statusCode >= 500 ? 'internal server error, contact the administrator' : error.message;
    return { statusCode: error.statusCode, message, code: error.code };
  }
  const fastifyError = error as FastifyError;
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    const code = fastifyError.code ?? 'invalid_request';
    const message = status === 413 ? 'request body is too large' : fastifyError.message;
    return { statusCode: status, message, code };
  }
  request.log.error({ err: error }, 'unhandled error');
  return { statusCode: 500, message: 'internal server error, contact the administrator', code: 'internal_error' };
}
