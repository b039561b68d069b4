import { z } from 'zod';
import type { RoutingChannel } from '@aigw/contracts';
import type { ProviderContext } from '../types.js';
import { ChannelConfigurationError } from '../shared/url.js';

/** The fields of a Google service-account key the relay uses. */
const serviceAccountSchema = z.object({
  type: z.literal('service_account').optional(),
  project_id: z.string().min(1),
  private_key_id: z.string().optional(),
  private_key: z.string().min(1),
  client_email: z.string().min(1),
  token_uri: z.string().url().optional(),
});
export type ServiceAccount = z.infer<typeof serviceAccountSchema>;

export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** Parsed keys by their text: every call needs the account, the JSON need not be read each time. */
const parsedAccounts = new Map<string, ServiceAccount>();

/** The channel's key: a service-account JSON key file, as Google issues it (the established product's format). */
export function serviceAccount(channel: Pick<RoutingChannel, 'id'>, key: string): ServiceAccount {
  const known = parsedAccounts.get(key);
  if (known) return known;
  let json: unknown;
  try {
    json = JSON.parse(key);
  } catch {
    throw new ChannelConfigurationError('channel_key_malformed', `channel ${channel.id} (Vertex AI) needs a service-account JSON key`);
  }
  const parsed = serviceAccountSchema.safeParse(json);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') ?? 'key';
    throw new ChannelConfigurationError('channel_key_malformed', `channel ${channel.id} (Vertex AI): the service-account key lacks a valid ${field}`);
  }
  // Bounded by the channels there are; a rotated key leaves its old entry until the map is full.
  if (parsedAccounts.size >= 1_000) parsedAccounts.clear();
  parsedAccounts.set(key, parsed.data);
  return parsed.data;
}

const REGION = /^(?:global|[a-z]+-[a-z]+\d+)$/;

/**
 * The region of a model: the channel's `other` as a region (`us-central1`), or a JSON map of model
 * to region with a `default` (as the established product's channels give it), e.g.
 * `{"default": "us-central1", "claude-3-5-sonnet-v2@20241022": "us-east5"}`, keyed by the upstream
 * model or the name clients ask for.
 */
export function regionOf(channel: Pick<RoutingChannel, 'id' | 'other'>, model: string, requested = model): string {
  const other = channel.other.trim();
  let region = other;
  if (other.startsWith('{')) {
    let map: Record<string, unknown>;
    try {
      map = JSON.parse(other) as Record<string, unknown>;
    } catch {
      throw new ChannelConfigurationError('channel_region_missing', `channel ${channel.id} (Vertex AI): its region map is not valid JSON`);
    }
    const picked = map[model] ?? map[requested] ?? map.default;
    region = typeof picked === 'string' ? picked.trim() : '';
  }
  if (!REGION.test(region)) {
    throw new ChannelConfigurationError(
      'channel_region_missing',
      `channel ${channel.id} (Vertex AI) has no valid region for ${model}: set it in the channel's "other" field`,
    );
  }
  return region;
}

/** Claude on Vertex (Anthropic's body), Gemini (generateContent), or a partner model on the OpenAI-compatible MaaS endpoint. */
export type VertexFamily = 'anthropic' | 'gemini' | 'openai';

export function familyOf(model: string): VertexFamily {
  const name = model.toLowerCase();
  if (name.includes('claude')) return 'anthropic';
  if (name.startsWith('gemini') || name.startsWith('models/gemini')) return 'gemini';
  return 'openai';
}

/** The `anthropic_version` Vertex's Claude bodies carry. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/**
 * `{host}/v1/projects/{project}/locations/{region}`: the host is the channel's base_url when set
 * (a private endpoint, a proxy), else the region's (the global endpoint has no region prefix).
 */
export function locationBase(context: Pick<ProviderContext, 'channel' | 'key' | 'upstreamModel' | 'requestedModel'>): string {
  const account = serviceAccount(context.channel, context.key);
  const region = regionOf(context.channel, context.upstreamModel, context.requestedModel);
  const host =
    context.channel.base_url.trim().replace(/\/+$/, '') ||
    (region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`);
  return `${host}/v1/projects/${encodeURIComponent(account.project_id)}/locations/${region}`;
}

/** A publisher model's method: `.../publishers/{google|anthropic}/models/{model}:{method}`. */
export function publisherUrl(
  context: Pick<ProviderContext, 'channel' | 'key' | 'upstreamModel' | 'requestedModel'>,
  publisher: 'google' | 'anthropic',
  method: string,
): string {
  const model = encodeURIComponent(context.upstreamModel.replace(/^models\//, ''));
  return `${locationBase(context)}/publishers/${publisher}/models/${model}:${method}`;
}
