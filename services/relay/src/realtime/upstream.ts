import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { RoutingChannel } from '@aigw/contracts';
import { EgressBlockedError, resolveEgressHost, type ResolvedAddress } from '@aigw/platform';
import WebSocket from 'ws';
import { CHANNEL_PRIVATE_NETWORK_REFUSAL } from '../channel-egress.js';
import { mappedStatus } from '../domain/channel-choice.js';
import type { Failure } from '../relay-call.js';
import type { ProviderDefinition } from '../providers/types.js';
import { redactKey } from '../redact.js';

/** The largest message either side may send (OpenAI takes audio appends of up to 15 MiB). */
export const REALTIME_MAX_PAYLOAD_BYTES = 32 * 1024 * 1024;

/** How long the upstream has to answer our close (a response still finishing may bill) before its socket is dropped. */
const UPSTREAM_CLOSE_TIMEOUT_MS = 10_000;

/** What the relay says when a refused upstream is not the client's business (the log keeps the detail). */
export type UpstreamOutcome = { socket: WebSocket } | { failure: Failure; detail: string };

/**
 * Ports below 1024 other than 80 and 443 are refused, as the egress client refuses them for HTTP
 * (packages/platform/src/egress/egress-client.ts: internal services live there).
 */
const isAllowedPort = (port: number) => port === 80 || port === 443 || port >= 1024;

function failure(status: number, message: string, code: string, detail = message): { failure: Failure; detail: string } {
  return { failure: { status, error: { message, type: 'upstream_error', code } }, detail };
}

/**
 * Opens the upstream socket of a realtime session under the relay's egress rules (rule R1, the
 * channel's own private-network flag for R2): the URL rules of the egress client (ws or wss, no
 * userinfo, port 80, 443 or from 1024 up), then the host resolved once and every address it has
 * judged (`resolveEgressHost`, as the mailer does for SMTP); the socket then connects to exactly
 * the checked addresses (its `lookup` answers them, so DNS gets no second say), redirects are
 * never followed. The channel key travels in the target's headers, never in its URL.
 *
 * Resolves with the open socket, paused (nothing it sends is read until the session resumes it,
 * so no event is lost before the client's socket exists), or with a Failure: 502 for a refused
 * address, 0 for an unreachable upstream (retryable), the upstream's status (mapped by the
 * channel) with the provider's error otherwise. Never rejects.
 */
export async function openUpstream(
  channel: RoutingChannel,
  provider: ProviderDefinition,
  target: { url: string; headers: Record<string, string> },
  key: string,
  timeouts: { handshakeMs: number },
): Promise<UpstreamOutcome> {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return failure(502, 'the channel address is not allowed', 'upstream_address_blocked', 'egress blocked: not a valid absolute URL');
  }
  const refusedUrl =
    url.protocol !== 'ws:' && url.protocol !== 'wss:'
      ? `egress blocked: scheme ${url.protocol} is not allowed (ws and wss only)`
      : url.username || url.password
        ? 'egress blocked: credentials in the URL are not allowed; send them in a header'
        : url.port && !isAllowedPort(Number(url.port))
          ? `egress blocked: port ${url.port} is not allowed (80, 443 or 1024 and above)`
          : null;
  if (refusedUrl) return failure(502, 'the channel address is not allowed', 'upstream_address_blocked', refusedUrl);

  let addresses: ResolvedAddress[];
  try {
    addresses = await resolveEgressHost(url.hostname, { allowPrivateNetwork: channel.allow_private_network, refusal: CHANNEL_PRIVATE_NETWORK_REFUSAL });
  } catch (error) {
    // reportFailure words the refusal in English for the failure event.
    if (error instanceof EgressBlockedError) return failure(502, 'the channel address is not allowed', 'upstream_address_blocked', error.message);
    return failure(0, 'failed to reach the upstream', 'upstream_unreachable', (error as Error).message);
  }
  // net.connect asks this instead of DNS (an IP literal needs no lookup and was judged above);
  // TLS still verifies the certificate for the name (ws sets the servername from the URL).
  const lookup: LookupFunction = (_hostname, options, callback) => {
    const usable = addresses.filter((answer) => !options.family || answer.family === options.family);
    if (usable.length === 0) callback(Object.assign(new Error(`no address for ${url.hostname}`), { code: 'ENOTFOUND' }), '');
    else if (options.all) callback(null, usable);
    else callback(null, usable[0]!.address, usable[0]!.family);
  };
  // `lookup` and `closeTimeout` reach net.connect and ws, though ws's types do not list them.
  const options: WebSocket.ClientOptions & { lookup: LookupFunction; closeTimeout: number } = {
    headers: target.headers,
    lookup,
    handshakeTimeout: timeouts.handshakeMs,
    closeTimeout: UPSTREAM_CLOSE_TIMEOUT_MS,
    followRedirects: false,
    perMessageDeflate: false,
    maxPayload: REALTIME_MAX_PAYLOAD_BYTES,
  };

  return new Promise<UpstreamOutcome>((resolve) => {
    let socket: WebSocket;
    try {
      socket = new WebSocket(url, options);
    } catch (error) {
      resolve(failure(502, 'the channel address is not allowed', 'upstream_address_blocked', (error as Error).message));
      return;
    }
    let settled = false;
    const settle = (outcome: UpstreamOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    // Always listened to: an 'error' without a listener would throw. Later errors end in 'close'.
    socket.on('error', (error) => settle(failure(0, 'failed to reach the upstream', 'upstream_unreachable', redactKey(error.message, key))));
    socket.once('unexpected-response', (request, response: IncomingMessage) => {
      void readAnswer(response).then((text) => {
        request.destroy();
        const error = provider.error(response.statusCode ?? 502, text);
        settle({
          failure: { status: mappedStatus(channel, response.statusCode ?? 502), error: { ...error, message: redactKey(error.message, key) } },
          detail: redactKey(error.message, key),
        });
      });
    });
    socket.once('open', () => {
      socket.pause();
      settle({ socket });
    });
  });
}

/** At most 64 KiB of an upstream's refusal, for its error message. */
async function readAnswer(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response) {
      const buffer = chunk as Buffer;
      chunks.push(buffer);
      size += buffer.length;
      if (size >= 64 * 1024) break;
    }
  } catch {
    // What arrived is enough for the message.
  }
  return Buffer.concat(chunks)
    .toString('utf8')
    .slice(0, 64 * 1024);
}
