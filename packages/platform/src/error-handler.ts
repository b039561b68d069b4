import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { issueMessage, localizeMessage, msg, type ZodIssueFields } from '@aigw/contracts';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { BusRequestError } from './bus/bus.js';
import { AppError, UserError } from './errors.js';
import { answerLocale, errorShapeFor, sendError, type ErrorAnswer, type ErrorShape } from './error-shapes.js';
import { validationMessage } from './validation-message.js';
import { scrubSecrets } from './logger.js';
import { outageLog } from './outage-log.js';

/** What a caller should wait before trying again when a dependency is briefly away. */
export const RETRY_AFTER_SECONDS = 2;

/** The 5xx messages: they say what to do, never what broke inside. */
const serverMessages: Record<number, string> = {
  500: 'internal server error, contact the administrator',
  502: 'a service is unreachable, try again later',
  503: 'the service is briefly unavailable, try again shortly',
  504: 'a service did not answer in time, try again later',
};

export function serverErrorMessage(status: number): string {
  return serverMessages[status] ?? serverMessages[500]!;
}

/** A dependency that is briefly away: which one (the outage's kind, for the log) and what it said. */
export interface DependencyOutage {
  kind: string;
  reason: string;
}

/** Network codes of a connection that could not be made or was lost. */
const connectionCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN']);

/**
 * PostgreSQL SQLSTATEs of a server that is away or restarting: class 08 (connection exception),
 * 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now. SQLite's busy/locked
 * database is the embedded equivalent of "try again in a moment".
 */
const databaseCodes = new Set(['08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03', 'SQLITE_BUSY', 'SQLITE_LOCKED']);

/** What node-postgres says when the server went away under it. */
const databaseMessages = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

interface ErrorFields {
  code?: unknown;
  message?: unknown;
  name?: unknown;
  address?: unknown;
  port?: unknown;
  /** TypeORM's QueryFailedError keeps the driver's error here. */
  driverError?: unknown;
  cause?: unknown;
}

/**
 * Recognises a dependency that is briefly away: a bus request nobody answered (timeout, no
 * responder, bus disconnected), a database that refuses or dropped the connection, Redis gone.
 * Follows TypeORM's `driverError` and `cause` chains. Anything else (a bug, a constraint, a
 * responder's own error) is not an outage.
 */
export function dependencyOutage(error: unknown): DependencyOutage | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    if (current instanceof BusRequestError) {
      return current.reason === 'remote-error' ? null : { kind: `bus ${current.subject}`, reason: current.message };
    }
    const fields = current as ErrorFields;
    const message = typeof fields.message === 'string' ? fields.message : '';
    const code = typeof fields.code === 'string' ? fields.code : '';
    if (databaseCodes.has(code) || databaseMessages.test(message)) return { kind: 'database', reason: message };
    if (connectionCodes.has(code)) {
      const where = typeof fields.address === 'string' ? ` ${fields.address}${typeof fields.port === 'number' ? `:${fields.port}` : ''}` : '';
      return { kind: `connection${where}`, reason: message };
    }
    if (fields.name === 'MaxRetriesPerRequestError') return { kind: 'redis', reason: message };
    current = fields.driverError ?? fields.cause;
  }
  return null;
}

/**
 * Status, user-facing message and code for an error, for every shape. Dependency trouble
 * (an OperationalError, or an outage `dependencyOutage` recognises) is warned about through the
 * outage log (one line a second per kind, no stack) and answers 503 with Retry-After; unexpected
 * errors are logged with their stack and answer 500; a 5xx never echoes internals.
 */
export function describeError(error: FastifyError | Error, request: FastifyRequest, shape: ErrorShape): ErrorAnswer {
  const locale = answerLocale(request);
  if (hasZodFastifySchemaValidationErrors(error)) {
    const issues = error.validation.map((issue) => {
      const field = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
      // The type provider keeps zod's issue code as the keyword and its other fields as params.
      const zodIssue: ZodIssueFields = { ...(issue.params as ZodIssueFields), code: issue.keyword, message: issue.message };
      // Console routes answer in the catalogue's words; relay routes keep zod's, as their clients saw them.
      return { where: field, message: shape === 'envelope' ? issueMessage(zodIssue) : (issue.message ?? '') };
    });
    return { statusCode: 200, message: validationMessage(issues, locale, error.validationContext), code: 'invalid_request' };
  }
  if (error instanceof AppError) {
    if (error.report) reportOutage(request, error.code, error);
    const message = error.statusCode >= 500 ? serverErrorMessage(error.statusCode) : localizeMessage(error.message, locale);
    const param = error instanceof UserError && error.param !== undefined ? { param: error.param } : {};
    return {
      statusCode: error.statusCode,
      message,
      code: error.code,
      ...param,
      ...(error.statusCode === 503 ? { retryAfterSeconds: RETRY_AFTER_SECONDS } : {}),
    };
  }
  const outage = dependencyOutage(error);
  if (outage) {
    reportOutage(request, outage.kind, error);
    return { statusCode: 503, message: serverErrorMessage(503), code: 'service_unavailable', retryAfterSeconds: RETRY_AFTER_SECONDS };
  }
  const fastifyError = error as FastifyError;
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    // Fastify's body limit (FST_ERR_CTP_BODY_TOO_LARGE) answers like every other cap.
    const code = status === 413 ? 'request_too_large' : (fastifyError.code ?? 'invalid_request');
    const message = status === 413 ? localizeMessage(msg('common.body_too_large'), locale) : fastifyError.message;
    return { statusCode: status, message, code };
  }
  request.log.error({ err: error }, 'unhandled error');
  return { statusCode: 500, message: serverErrorMessage(500), code: 'internal_error' };
}

/** The error's own words and those of its cause, scrubbed: enough to tell outages apart without a stack. */
function reasonOf(error: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  const { message, cause, code } = (error ?? {}) as ErrorFields;
  if (typeof message === 'string') fields.reason = scrubSecrets(message);
  if (typeof code === 'string') fields.code = code;
  const causeMessage = (cause as ErrorFields | undefined)?.message;
  if (typeof causeMessage === 'string') fields.cause = scrubSecrets(causeMessage);
  return fields;
}

function reportOutage(request: FastifyRequest, kind: string, error: unknown): void {
  // An app from createApp has its own; a bare Fastify instance shares the process's.
  (request.server.outageLog ?? outageLog).report(
    request.log,
    kind,
    { ...reasonOf(error), method: request.method, url: request.routeOptions.url ?? 'unmatched' },
    'dependency unavailable',
  );
}

/** The console envelope, whatever the path (console routes of a service that also has relay routes). */
export function envelopeErrorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  sendError(reply, 'envelope', describeError(error, request, 'envelope'));
}

/** The default error handler of every app: the shape the path's callers expect (`errorShapeFor`). */
export function shapedErrorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const shape = errorShapeFor(request.url);
  sendError(reply, shape, describeError(error, request, shape));
}
