import { AppError, OperationalError } from '../errors.js';
import type { BlockedRange } from './address-policy.js';

/** Which rule refused the URL. Only `address` can be lifted, by the private-network option. */
export type EgressBlockReason = 'invalid_url' | 'scheme' | 'userinfo' | 'port' | 'address';

/**
 * The egress guard refused a URL before any byte left the process (rule R1). A configuration
 * mistake, not an outage: never retried, never reported as operational trouble. Its message is
 * the catalogue's (`msg(id)`, docs/architecture.md section 3.12): a console answer words it in
 * the caller's language, a record keeps `localizeMessage(message, 'en-US')`.
 */
export class EgressBlockedError extends AppError {
  constructor(
    message: string,
    readonly reason: EgressBlockReason,
    /** For `address`: the resolved or literal IP that was refused, and its registry block. */
    readonly address?: string,
    readonly range?: BlockedRange,
  ) {
    super(message, 'egress_blocked', 400, false);
  }
}

/** What went wrong on the wire; the relay's retry logic reads this, never the message. */
export type EgressFailure =
  'connect_timeout' | 'headers_timeout' | 'body_timeout' | 'connection_refused' | 'dns' | 'aborted' | 'too_large' | 'closed' | 'network';

/**
 * A network failure talking to an allowed upstream. The message names the origin and path only:
 * query strings (Gemini's `?key=`) and userinfo can hold secrets and end up in logs.
 */
export class EgressError extends OperationalError {
  constructor(
    readonly kind: EgressFailure,
    url: URL | undefined,
    cause?: unknown,
  ) {
    const code = (cause as { code?: unknown } | undefined)?.code;
    const where = url ? ` (${url.origin}${url.pathname})` : '';
    super(
      `upstream ${kind.replace('_', ' ')}${where}${typeof code === 'string' ? ` [${code}]` : ''}`,
      `egress_${kind}`,
      kind.endsWith('timeout') ? 504 : 502,
      cause,
    );
  }
}

const KIND_BY_CODE: Record<string, EgressFailure> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect_timeout',
  UND_ERR_HEADERS_TIMEOUT: 'headers_timeout',
  UND_ERR_BODY_TIMEOUT: 'body_timeout',
  ECONNREFUSED: 'connection_refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  UND_ERR_ABORTED: 'aborted',
  ABORT_ERR: 'aborted',
  UND_ERR_DESTROYED: 'closed',
  UND_ERR_CLOSED: 'closed',
};

/**
 * Normalises anything undici or the socket threw into an EgressError (blocked and already
 * normalised errors pass through). Exported for the streaming case: a timeout or reset while
 * the caller reads `body` surfaces on that stream as undici's own error.
 */
export function toEgressError(error: unknown, url?: URL, signal?: AbortSignal): EgressBlockedError | EgressError {
  if (error instanceof EgressBlockedError || error instanceof EgressError) return error;
  if (signal?.aborted || (error instanceof Error && error.name === 'AbortError')) return new EgressError('aborted', url, error);
  const code = (error as { code?: unknown } | null)?.code;
  return new EgressError((typeof code === 'string' && KIND_BY_CODE[code]) || 'network', url, error);
}
