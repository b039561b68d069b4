import { requestLocale, type Locale } from '@aigw/contracts';

/**
 * The shape an error answer takes, by who is calling (docs/architecture.md section 7): the
 * console's envelope on `/api`, the provider's own error on relay paths (OpenAI's, Anthropic's on
 * the Messages API, Gemini's on `/v1beta`), so every client's SDK reads our errors as its
 * provider's.
 */
export type ErrorShape = 'envelope' | 'openai' | 'anthropic' | 'gemini';

/** Relay path prefixes and their callers' shape; the first match wins, so the specific ones come first. */
const relayShapes: ReadonlyArray<readonly [prefix: string, shape: ErrorShape]> = [
  ['/v1/messages', 'anthropic'],
  ['/v1beta', 'gemini'],
  ['/v1', 'openai'],
  ['/pg', 'openai'],
  ['/mj', 'openai'],
  ['/mj-fast', 'openai'],
  ['/mj-relax', 'openai'],
  ['/mj-turbo', 'openai'],
  ['/suno', 'openai'],
  ['/dashboard/billing', 'openai'],
];

/** The one place that knows which error shape a path wants (query string ignored). */
export function errorShapeFor(url: string): ErrorShape {
  const path = url.split('?', 1)[0]!;
  const match = relayShapes.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`));
  return match ? match[1] : 'envelope';
}

/**
 * The language an answer to a request at `url` is worded in (docs/architecture.md section 3.12):
 * its Accept-Language; without one, zh-CN on console paths and English for relay clients.
 */
export function answerLocale(request: { url: string; headers: { 'accept-language'?: string | string[] } }): Locale {
  return requestLocale(request.headers['accept-language'], errorShapeFor(request.url) === 'envelope' ? 'zh-CN' : 'en-US');
}

/** An error as answered, whatever the shape. */
export interface ErrorAnswer {
  statusCode: number;
  /** Shown to the caller as is: a 5xx never carries internals. */
  message: string;
  /** Stable machine code (OpenAI's `code`). */
  code: string;
  /** OpenAI's error `type`; derived from the status when absent. */
  type?: string;
  /** OpenAI's error `param`: the request field at fault, when one is. */
  param?: string;
  /** Sent as Retry-After: the dependency is expected back shortly. */
  retryAfterSeconds?: number;
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

/** Google's status name for an HTTP status, as Gemini's errors carry it. */
function googleStatus(status: number): string {
  const names: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    409: 'ABORTED',
    413: 'INVALID_ARGUMENT',
    429: 'RESOURCE_EXHAUSTED',
    499: 'CANCELLED',
    501: 'UNIMPLEMENTED',
    502: 'UNAVAILABLE',
    503: 'UNAVAILABLE',
    504: 'DEADLINE_EXCEEDED',
  };
  return names[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

/**
 * The body of an error answer in `shape`. Relay shapes name the request id in the message, as
 * the established product does (`… (request id: <id>)`), so a complaint can be matched to a log.
 */
export function errorBody(shape: ErrorShape, answer: ErrorAnswer, requestId: string): unknown {
  const status = answerStatus(shape, answer);
  const message = `${answer.message} (request id: ${requestId})`;
  switch (shape) {
    case 'envelope':
      return { success: false, message: answer.message };
    case 'openai':
      return {
        error: { message, type: answer.type ?? (status >= 500 ? 'new_api_error' : 'invalid_request_error'), param: answer.param ?? '', code: answer.code },
      };
    case 'anthropic':
      return { type: 'error', error: { type: anthropicErrorType(status), message } };
    case 'gemini':
      return { error: { code: status, message, status: googleStatus(status) } };
  }
}

/** Relay clients read failures from the status: a business failure the envelope answers with 200 is a 400 to them. */
function answerStatus(shape: ErrorShape, answer: ErrorAnswer): number {
  return shape !== 'envelope' && answer.statusCode < 400 ? 400 : answer.statusCode;
}

/** What sending an error needs of a reply (any server flavour's FastifyReply has it). */
export interface ErrorReply {
  header(name: string, value: string): unknown;
  status(statusCode: number): { send(payload: unknown): unknown };
  request: { id: string };
}

/** Sends `answer` in `shape`, with Retry-After when the dependency is expected back shortly. */
export function sendError(reply: ErrorReply, shape: ErrorShape, answer: ErrorAnswer): void {
  if (answer.retryAfterSeconds !== undefined) void reply.header('Retry-After', String(answer.retryAfterSeconds));
  void reply.status(answerStatus(shape, answer)).send(errorBody(shape, answer, reply.request.id));
}
