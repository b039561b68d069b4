import { EgressBlockedError, type EgressResponse } from '@aigw/platform';
import { channelEgress } from './channel-egress.js';
import type { RelayContext } from './context.js';
import { mappedStatus } from './domain/channel-choice.js';
import { RelayError } from './errors.js';
import type { OperationName, UpstreamAnswer } from './operations/types.js';
import { UpstreamAnswerError } from './providers/shared/upstream-error.js';
import type { ProviderError, UpstreamRequest } from './providers/types.js';
import { authorized, readBounded, type Attempt } from './relay-call.js';

/** A whole upstream answer as read; `parsed` is its JSON once parsed (relay-call.ts sends `text` as is when the client's body is that JSON). */
export type ReadAnswer = UpstreamAnswer & { parsed: unknown };

/** How much of a refused poll's body is read for its error message. */
const ERROR_BODY_BYTES = 64 * 1024;

/**
 * A polled answer (docs/architecture.md section 5.5): some upstreams answer a call with a pending
 * job, not its result (DashScope's image tasks). The provider's `passthrough.follow` reads each 2xx
 * answer and says whether it is final or which call to send next and when; the relay sends those
 * calls here, within the client's request, until one is final, and returns that one for the
 * operation (which prices and records it once). The whole sequence has the deadline of one whole
 * answer (`deadline`, epoch ms: UPSTREAM_ANSWER_TIMEOUT_MS after the first answer's headers), so
 * no request outlives its quota hold: past it, 504 `upstream_timeout` like any slow answer.
 *
 * A follow-up that fails (unreachable, a non-2xx answer) or a job the provider finds failed throws
 * an UpstreamAnswerError: relay-call.ts takes it as the channel's failure (reported once, retried on
 * another channel when its status allows), exactly as a failed first call.
 */
export async function polledAnswer(
  context: RelayContext,
  attempt: Attempt,
  operation: OperationName,
  first: ReadAnswer,
  deadline: number,
): Promise<ReadAnswer> {
  const adapter = attempt.provider.passthrough;
  if (!adapter?.follow) return first;
  let answer = first;
  for (let sent = 0; ; sent++) {
    const step = adapter.follow(operation, answer.json(), attempt.context, sent);
    if (step.done) return step.answer === undefined ? answer : converted(step.answer);
    // The next call could only go out after the deadline: nothing can change the outcome by waiting.
    if (Date.now() + step.afterMs >= deadline) throw tooLate();
    await new Promise((resolve) => setTimeout(resolve, step.afterMs));
    answer = await followUp(context, attempt, step.next, deadline);
  }
}

/** One follow-up call, authorized and sent under the channel's egress rule (rule R2), cut at the deadline. */
async function followUp(context: RelayContext, attempt: Attempt, next: UpstreamRequest, deadline: number): Promise<ReadAnswer> {
  const { channel, provider } = attempt;
  let request: UpstreamRequest;
  try {
    request = await authorized(context, provider, channel, attempt.context.key, next);
  } catch {
    // As in relay-call.ts's send: a credential that could not be exchanged fails the attempt like an unreachable upstream.
    throw failed(0, { message: 'the channel credential was not accepted', type: 'upstream_error', code: 'upstream_auth_failed' });
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), Math.max(deadline - Date.now(), 0));
  /** A failure of the call itself: the deadline's abort, or the network. */
  const broken = (error: unknown) => {
    if (abort.signal.aborted) return tooLate();
    if (error instanceof EgressBlockedError)
      return failed(502, { message: 'the channel address is not allowed', type: 'upstream_error', code: 'upstream_address_blocked' });
    return failed(0, { message: 'failed to reach the upstream', type: 'upstream_error', code: 'upstream_unreachable' });
  };
  try {
    let response: EgressResponse;
    try {
      response = await context.egress.request(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: abort.signal,
        ...channelEgress(channel),
      });
    } catch (error) {
      throw broken(error);
    }
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    const text = await readBounded(response, ok ? context.limits.maxUpstreamBodyBytes : ERROR_BODY_BYTES).catch((error: unknown) => {
      throw broken(error);
    });
    if (!ok) throw failed(mappedStatus(channel, response.statusCode), provider.error(response.statusCode, text));
    return parsedAnswer(text, String(response.headers['content-type'] ?? ''));
  } finally {
    clearTimeout(timer);
  }
}

function failed(status: number, error: ProviderError): UpstreamAnswerError {
  return new UpstreamAnswerError(error, status);
}

function tooLate(): RelayError {
  return new RelayError(504, 'the upstream answer took longer than the relay allows', 'upstream_timeout', 'upstream_error');
}

function parsedAnswer(text: string, contentType: string): ReadAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new RelayError(502, 'the upstream answered with something that is not JSON', 'bad_upstream_response', 'upstream_error');
  }
  return { text, contentType, parsed, json: () => parsed };
}

/** The provider's final answer in the client's shape, as if the upstream had sent it. */
function converted(answer: unknown): ReadAnswer {
  return { text: JSON.stringify(answer), contentType: 'application/json', parsed: answer, json: () => answer };
}
