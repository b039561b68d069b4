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

/** The relay's error handler: OpenAI shape for everything, validation included. */
export function relayErrorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof RelayError) {
    void reply.status(error.statusCode).send(openAiErrorBody(error, request.id));
    return;
  }
  const { statusCode, message, code } = describeError(error, request);
  // Validation failures are bad requests here (OpenAI clients expect 400, not a 200 envelope).
  const status = statusCode === 200 ? 400 : statusCode;
  void reply.status(status).send(openAiErrorBody({ message, type: status >= 500 ? 'new_api_error' : 'invalid_request_error', code }, request.id));
}
