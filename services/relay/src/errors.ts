import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeError } from '@aigw/platform';

/**
 * An error the relay answers in OpenAI's shape `{error: {message, type, code}}` with a real
 * HTTP status. Messages never carry upstream URLs or keys.
 */
export class RelayError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code: string,
    readonly type = 'new_api_error',
  ) {
    super(message);
    this.name = 'RelayError';
  }
}

export function openAiErrorBody(error: { message: string; type: string; code: string }, requestId: string) {
  return { error: { message: `${error.message} (request id: ${requestId})`, type: error.type, param: '', code: error.code } };
}

/** An error as the relay answers it: status, message, OpenAI type and code. */
interface ErrorAnswer {
  status: number;
  message: string;
  type: string;
  code: string;
}

function errorAnswer(error: FastifyError | Error, request: FastifyRequest): ErrorAnswer {
  if (error instanceof RelayError) return { status: error.statusCode, message: error.message, type: error.type, code: error.code };
  const { statusCode, message, code } = describeError(error, request);
  // Validation failures are bad requests here (OpenAI clients expect 400, not a 200 envelope).
  const status = statusCode === 200 ? 400 : statusCode;
  return { status, message, type: status >= 500 ? 'new_api_error' : 'invalid_request_error', code };
}

/** The relay's error handler: OpenAI shape for everything, validation included. */
export function relayErrorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const answer = errorAnswer(error, request);
  void reply.status(answer.status).send(openAiErrorBody(answer, request.id));
}

/** Anthropic's error type for an HTTP status (its SDKs pick the error class from the status). */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

export function anthropicErrorBody(status: number, message: string, requestId: string) {
  return { type: 'error', error: { type: anthropicErrorType(status), message: `${message} (request id: ${requestId})` } };
}

/** The error handler of the Anthropic-format route: the same statuses, in Anthropic's shape. */
export function anthropicErrorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const answer = errorAnswer(error, request);
  void reply.status(answer.status).send(anthropicErrorBody(answer.status, answer.message, request.id));
}
