import type { ProviderContext } from '../types.js';
import { ChannelConfigurationError } from '../shared/url.js';

/** Where Spark listens when the channel has no base_url (the established product has no default for type 18 either). */
export const SPARK_DEFAULT_ORIGIN = 'wss://spark-api.xf-yun.com';

/** What a Spark version is called at, and what its message must say. */
export interface SparkVersion {
  /** The name the channel gives it (`other`), lower-case. */
  version: string;
  /** The socket's path; the request line of the signature signs it. */
  path: string;
  /** `parameter.chat.domain`: Spark refuses a message whose domain is not its endpoint's. */
  domain: string;
  /** Whether the version takes `payload.functions` (and answers `function_call`). */
  functions: boolean;
  /** Whether it takes a `system` message; older versions get the system text at the head of the first user turn. */
  system: boolean;
}

/**
 * The versions iFlytek serves, in one place (its Web API docs, "接口说明"; docs/compatibility.md
 * section 2.3). v1.1 is Spark Lite, whose domain iFlytek renamed from `general` (when it was
 * "Spark V1.5") to `lite`; v2.1 is the retired Spark V2.0; v3.1 Pro, v3.5 Max, v4.0 4.0 Ultra.
 * The long-context variants have their own paths, not under a version. System messages and
 * functions came with v3.
 */
const VERSIONS: readonly SparkVersion[] = [
  { version: 'v1.1', path: '/v1.1/chat', domain: 'lite', functions: false, system: false },
  { version: 'v2.1', path: '/v2.1/chat', domain: 'generalv2', functions: false, system: false },
  { version: 'v3.1', path: '/v3.1/chat', domain: 'generalv3', functions: true, system: true },
  { version: 'pro-128k', path: '/chat/pro-128k', domain: 'pro-128k', functions: true, system: true },
  { version: 'v3.5', path: '/v3.5/chat', domain: 'generalv3.5', functions: true, system: true },
  { version: 'max-32k', path: '/chat/max-32k', domain: 'max-32k', functions: true, system: true },
  { version: 'v4.0', path: '/v4.0/chat', domain: '4.0Ultra', functions: true, system: true },
];
const byName = new Map(VERSIONS.map((entry) => [entry.version, entry]));

/** The established product's names for the variants (its models `SparkDesk-v3.1-128K`, `SparkDesk-v3.5-32K`). */
const ALIASES: Record<string, string> = { 'v3.1-128k': 'pro-128k', 'v3.5-32k': 'max-32k' };

/** The established product's product-named models (Spark-Lite ... Spark-4.0-Ultra) and their versions. */
const PRODUCT_MODELS: Record<string, string> = {
  'spark-lite': 'v1.1',
  'spark-pro': 'v3.1',
  'spark-pro-128k': 'pro-128k',
  'spark-max': 'v3.5',
  'spark-max-32k': 'max-32k',
  'spark-4.0-ultra': 'v4.0',
};

/** The version a channel of the established product gets when neither it nor the model names one. */
const DEFAULT_VERSION = 'v1.1';

/**
 * The Spark version of a call: the channel's `other` when set (the console's "model version"),
 * else the one the model names as the established product reads it (`SparkDesk-v3.5` -> v3.5,
 * `Spark-Max` -> v3.5), else v1.1. A version Spark does not have is a configuration error, never
 * a guessed endpoint.
 */
export function sparkVersion(context: Pick<ProviderContext, 'channel' | 'upstreamModel'>): SparkVersion {
  const configured = context.channel.other.trim();
  const name = configured || versionOfModel(context.upstreamModel);
  const key = name.toLowerCase();
  const found = byName.get(ALIASES[key] ?? key);
  if (!found) {
    const known = VERSIONS.map((entry) => entry.version).join(', ');
    throw new ChannelConfigurationError('channel_spark_version_unknown', `Spark version "${name}" is unknown (one of ${known})`);
  }
  return found;
}

function versionOfModel(model: string): string {
  const lower = model.trim().toLowerCase();
  if (lower.startsWith('sparkdesk-')) return model.trim().slice('sparkdesk-'.length);
  return PRODUCT_MODELS[lower] ?? DEFAULT_VERSION;
}

/**
 * The socket's URL before it is signed: `wss://spark-api.xf-yun.com{path}`, or the channel's
 * base_url in place of scheme and host (a private endpoint or a proxy; http becomes ws and https
 * wss). Only its origin counts: the signature covers the version's own path, which a proxy must
 * pass on unchanged.
 */
export function sparkUrl(context: Pick<ProviderContext, 'channel'>, version: SparkVersion): string {
  const base = context.channel.base_url.trim();
  if (base === '') return `${SPARK_DEFAULT_ORIGIN}${version.path}`;
  let parsed: URL;
  try {
    parsed = new URL(base);
  } catch {
    throw new ChannelConfigurationError('channel_base_url_invalid', `the base_url of channel ${context.channel.id} is not a URL`);
  }
  const scheme = { 'http:': 'ws:', 'ws:': 'ws:', 'https:': 'wss:', 'wss:': 'wss:' }[parsed.protocol];
  if (!scheme) throw new ChannelConfigurationError('channel_base_url_invalid', `a Spark base_url is http(s) or ws(s), not ${parsed.protocol}`);
  return `${scheme}//${parsed.host}${version.path}`;
}

export interface SparkCredentials {
  appId: string;
  apiSecret: string;
  apiKey: string;
}

/** A Spark key is `<APPID>|<APISecret>|<APIKey>` (the established product's order; channels check it when saved). */
export function sparkCredentials(key: string): SparkCredentials {
  const parts = key.split('|').map((part) => part.trim());
  if (parts.length !== 3 || parts.some((part) => part === '')) {
    throw new ChannelConfigurationError('channel_key_malformed', 'an iFlytek Spark key has the form "<APPID>|<APISecret>|<APIKey>"');
  }
  const [appId, apiSecret, apiKey] = parts as [string, string, string];
  return { appId, apiSecret, apiKey };
}
