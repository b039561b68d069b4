import type { RoutingChannel } from '@aigw/contracts';

/** Weight smoothing: a weight-0 channel still gets some traffic (the established product's +10). */
const WEIGHT_SMOOTHING = 10;

/**
 * Picks a channel for one attempt: among the candidates not yet tried, the highest priority tier,
 * then weighted random inside it. Tried channels are excluded, so a retry never lands on the
 * channel that just failed (the established product's most reported relay bug); when a tier is
 * used up the next lower one serves. `random` is injectable for tests.
 */
export function chooseChannel(candidates: readonly RoutingChannel[], tried: ReadonlySet<number>, random: () => number = Math.random): RoutingChannel | null {
  let tier: RoutingChannel[] = [];
  let tierPriority = -Infinity;
  for (const channel of candidates) {
    if (tried.has(channel.id)) continue;
    if (channel.priority > tierPriority) {
      tierPriority = channel.priority;
      tier = [channel];
    } else if (channel.priority === tierPriority) {
      tier.push(channel);
    }
  }
  if (tier.length === 0) return null;
  if (tier.length === 1) return tier[0]!;
  const total = tier.reduce((sum, channel) => sum + channel.weight + WEIGHT_SMOOTHING, 0);
  let pick = random() * total;
  for (const channel of tier) {
    pick -= channel.weight + WEIGHT_SMOOTHING;
    if (pick < 0) return channel;
  }
  return tier[tier.length - 1]!;
}

/** The model sent upstream: the channel's mapping of the requested name, or the name itself. */
export function upstreamModel(channel: RoutingChannel, requested: string): string {
  const mapped = channel.model_mapping[requested];
  return typeof mapped === 'string' && mapped.length > 0 ? mapped : requested;
}

/** Applies the channel's status code mapping (`{"500":"503"}`) to an upstream error status. */
export function mappedStatus(channel: RoutingChannel, status: number): number {
  const mapped = Number(channel.status_code_mapping[String(status)]);
  return Number.isInteger(mapped) && mapped >= 100 && mapped <= 599 ? mapped : status;
}

/**
 * Whether a failed attempt may move to another channel (docs/compatibility.md section 3.2): 429 and
 * most 5xx, not 504/524 (timeouts: the upstream may still be working and charging), not 400 (the
 * request is wrong everywhere) except on Anthropic channels, not 408; auth and not-found answers
 * (401, 403, 404) are channel problems, so another channel may serve. Network errors are retryable.
 */
export function isRetryable(status: number, channelType: number): boolean {
  if (status === 0) return true;
  if (status === 504 || status === 524 || status === 408) return false;
  if (status === 400) return channelType === 14;
  if (status >= 200 && status < 300) return false;
  return true;
}
