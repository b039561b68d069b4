/**
 * The relay's provider-compatible surface (`/v1`, `/v1beta`, `/pg`, `/dashboard`, `/mj...`,
 * `/suno`): listed in the OpenAPI document with a short summary and a link to the provider's own
 * reference, never re-described. The relay takes these bodies as the providers define them.
 */

export interface ExternalDocs {
  description: string;
  url: string;
}

export interface CompatibleApi {
  /** The tag its operations are listed under. */
  tag: string;
  /** The tag's description: whose API it is and how the relay takes it. */
  description: string;
  /** The provider's reference for the whole API. */
  externalDocs: ExternalDocs;
  /** Whether a registered route (method, path as registered) is one of this API's. */
  matches(method: string, url: string): boolean;
  /** The provider's reference for one route, when it has a closer page than the API's. */
  docsFor?(url: string): ExternalDocs | undefined;
}

const under = (url: string, prefix: string) => url === prefix || url.startsWith(`${prefix}/`);

const midjourneyPrefixes = ['/mj', '/mj-fast/mj', '/mj-relax/mj', '/mj-turbo/mj'];

/** OpenAI's reference pages, by the path segment after `/v1/`. */
const openAiPages = new Set(['chat', 'completions', 'embeddings', 'moderations', 'images', 'audio', 'responses', 'models', 'realtime']);
const openAiReference = 'https://platform.openai.com/docs/api-reference';

/** The first match wins: the specific APIs under `/v1` come before OpenAI's. */
export const compatibleApis: readonly CompatibleApi[] = [
  {
    tag: 'Anthropic-compatible',
    description: "Anthropic's Messages API with an `sk-` key (native on Anthropic channels, converted on the others); errors in Anthropic's shape.",
    externalDocs: { description: "Anthropic's Messages API reference", url: 'https://docs.anthropic.com/en/api/messages' },
    matches: (_method, url) => under(url, '/v1/messages'),
  },
  {
    tag: 'Gemini-compatible',
    description:
      "Google's Gemini API (`generateContent`, `streamGenerateContent`, `embedContent`, `batchEmbedContents`, `countTokens`, the model list); key as `x-goog-api-key` or `?key=`; errors in Google's shape.",
    externalDocs: { description: "Google's Gemini API reference", url: 'https://ai.google.dev/api' },
    // The model methods are one wildcard route, under /v1beta and /v1 (the v1 API of the same clients).
    matches: (method, url) => under(url, '/v1beta') || (method === 'POST' && url === '/v1/models/*'),
  },
  {
    tag: 'Jina-compatible',
    description: "Reranking in Jina's shape (`/v1/rerank`).",
    externalDocs: { description: "Jina's Reranker API", url: 'https://jina.ai/reranker/' },
    matches: (_method, url) => url === '/v1/rerank',
  },
  {
    tag: 'OpenAI-compatible',
    description:
      "OpenAI's API with an `sk-` key: chat and text completions, embeddings, moderations, images, audio, responses, the model list and the Realtime WebSocket; " +
      "the billing dashboards chat clients read a key's balance with; the console's playground (`/pg`, with the console session instead of a key). Errors in OpenAI's shape.",
    externalDocs: { description: "OpenAI's API reference", url: openAiReference },
    matches: (_method, url) => under(url, '/v1') || under(url, '/pg') || under(url, '/dashboard'),
    docsFor: (url) => {
      const page = /^\/(?:v1|pg)\/([a-z]+)/.exec(url)?.[1];
      return page && openAiPages.has(page) ? { description: `OpenAI's ${page} reference`, url: `${openAiReference}/${page}` } : undefined;
    },
  },
  {
    tag: 'Midjourney (midjourney-proxy)',
    description:
      "The midjourney-proxy task API under `/mj` and the mode prefixes (`/mj-fast/mj`, `/mj-relax/mj`, `/mj-turbo/mj`): submits, fetches, the proxied images and the upstream's completion callback.",
    externalDocs: { description: 'midjourney-proxy', url: 'https://github.com/novicezk/midjourney-proxy' },
    matches: (_method, url) => midjourneyPrefixes.some((prefix) => under(url, prefix)),
  },
  {
    tag: 'Suno (Suno-API)',
    description: 'The Suno-API task API: music and lyrics submits and their fetches, answered in `{code, message, data}`.',
    externalDocs: { description: 'Suno-API', url: 'https://github.com/Suno-API/Suno-API' },
    matches: (_method, url) => under(url, '/suno'),
  },
];

/** The compatible API a registered route belongs to, or undefined (a management route, or none). */
export function compatibleApiOf(method: string, url: string): CompatibleApi | undefined {
  return compatibleApis.find((api) => api.matches(method, url));
}

/** Routes of the surface a caller reaches without an `sk-` key: signed image links and the upstream's callback (its secret is in the path). */
export const keylessCompatibleRoutes: ReadonlySet<string> = new Set(['/mj/image/:id', '/mj/notify/:channel/:secret']);

/**
 * The route's path as swagger formats it into the document's (`:name` is `{name}`). Fastify's `*`
 * becomes named parameters where the shape is known: the Gemini methods are listed as
 * `models/{model}:{method}` (`:generateContent`, ...), which swagger formats from `:model::method`.
 */
export function compatibleRouteOf(url: string): string {
  return url.endsWith('/models/*') ? `${url.slice(0, -1)}:model::method` : url;
}

/** A short summary from the OpenAPI path: `/v1/audio/transcriptions` is "audio transcriptions", `/mj-fast/mj/task/{id}/fetch` "mj-fast task {id} fetch". */
export function compatibleSummaryOf(path: string): string {
  return path
    .replace(/^\/(?:v1beta|v1)(?=\/|$)/, '')
    .replace(/^\/(mj-[a-z]+)\/mj(?=\/)/, '/$1')
    .split('/')
    .filter((segment) => segment !== '')
    .join(' ')
    .replace(/_/g, ' ');
}
