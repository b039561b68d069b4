import type { EventPayload, UsageRecord } from '@aigw/contracts';
import { publishEvent, type Bus, type ServiceMessaging } from '@aigw/platform';

/**
 * What the relay says on the bus. It publishes through the functions below: the money events
 * through usage-publisher.ts's spool, channel failures as they happen (relay-call.ts). It consumes
 * channels' routing rows (channels.ts) and billing's token and account changes (token-cache.ts),
 * answers channels' test and balance calls (channel-operations.ts), and asks for channel keys,
 * the routing snapshot and token lookups; quota seeds go through platform's quota gate, the
 * options through its options mirror.
 */
export const relayMessaging = {
  publishes: ['relay.usage.recorded', 'relay.request.started', 'relay.channel.failed'],
  consumes: [
    'channels.channel.updated',
    'channels.channel.deleted',
    'billing.token.updated',
    'billing.token.deleted',
    'billing.account.updated',
    'identity.option.updated',
  ],
  answers: ['relay.channel.operate'],
  asks: [
    'channels.channel.key',
    'channels.routing.snapshot',
    'billing.token.resolve',
    'billing.token.figures',
    'billing.quota.seed',
    'identity.option.snapshot',
  ],
} as const satisfies ServiceMessaging;

/** A request's one usage record (event id: the request id, so a republish is deduplicated). */
export async function publishUsageRecorded(bus: Bus, record: UsageRecord): Promise<void> {
  await publishEvent(bus, 'relay.usage.recorded', record, record.request_id);
}

/** A request still running (event id `started-<request id>`). */
export async function publishRequestStarted(bus: Bus, started: EventPayload<'relay.request.started'>): Promise<void> {
  await publishEvent(bus, 'relay.request.started', started, `started-${started.record.request_id}`);
}

export async function publishChannelFailed(bus: Bus, failure: EventPayload<'relay.channel.failed'>): Promise<void> {
  await publishEvent(bus, 'relay.channel.failed', failure);
}
