import { createEgressClient, type EgressClient } from '@aigw/platform';
import type { NotifierContext } from './context.js';

/**
 * A pool for calls to addresses users and root configure (integrators' webhooks, users' notice
 * methods): its own timeouts, and the relay's address rule (root's AllowPrivateNetworkUpstreams),
 * read on every call.
 */
export function outboundEgress(context: NotifierContext, timeoutMs: number): EgressClient {
  return createEgressClient({
    allowPrivateNetwork: () => context.options.get('AllowPrivateNetworkUpstreams'),
    connectTimeoutMs: Math.min(timeoutMs, 5_000),
    headersTimeoutMs: timeoutMs,
    bodyTimeoutMs: timeoutMs,
    keepAliveTimeoutMs: 30_000,
  });
}
