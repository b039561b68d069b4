import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeError, sendError, type ErrorAnswer, type ErrorShape } from '@aigw/platform';

/**
 * An error the relay answers in OpenAI's shape `{error: {message, type, code}}` (Anthropic's on
 * the Messages API) with a real HTTP status. Messages never carry upstream URLs or keys.
 */
export class RelayError extends Error {
  /** Answer headers beside the error (a usage limit's x-ratelimit-* and Retry-After). */
  readonly headers?: Record<string, string>;
  /** Sent as Retry-After. */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly statusCode: number,
    message: string,
    readonly code: string,
    readonly type = 'new_api_error',
    /** The request field at fault (OpenAI's `param`), when one is. */
    readonly param?: string,
  ) {
    super(message);
    this.name = 'RelayError';
  }
}

/**
 * Any error as the relay answers it. Platform errors keep their status (a dependency briefly
 * away is 503 with Retry-After); a validation failure, a 200 in the console's envelope, goes
 * out as 400 (the relay shapes' rule: their clients read failures from the status).
 */
function relayAnswer(error: FastifyError | Error, request: FastifyRequest, shape: ErrorShape): ErrorAnswer {
  if (error instanceof RelayError) {
    return {
      statusCode: error.statusCode,
      message: error.message,
      code: error.code,
      type: error.type,
      ...(error.param !== undefined ? { param: error.param } : {}),
      ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    };
  }
  return describeError(error, request, shape);
}

function relayErrorHandlerFor(shape: ErrorShape) {
  return (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void => {
    if (error instanceof RelayError && error.headers) void reply.headers(error.headers);
    sendError(reply, shape, relayAnswer(error, request, shape));
  };
}

/** The relay's error handler: OpenAI's shape for everything, validation included. */
export const relayErrorHandler = relayErrorHandlerFor('openai');

/** The error handler of the Anthropic-format route: the same statuses, in Anthropic's shape. */
export const anthropicErrorHandler = relayErrorHandlerFor('anthropic');

/** The error handler of the Gemini-format routes: the same statuses, in Google's shape. */
export const geminiErrorHandler = relayErrorHandlerFor('gemini');
