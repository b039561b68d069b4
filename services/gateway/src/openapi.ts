import {
  mergeOpenApiDocuments,
  openApiDocument,
  openApiPartSchema,
  openApiTitle,
  registerOpenApiPage,
  serviceOpenApiPath,
  type App,
  type OpenApiDocument,
  type OpenApiInfo,
  type OpenApiPart,
} from '@aigw/platform';
import { isDistributed, type GatewayConfig } from './config.js';
import { services, type ServiceName } from './route-table.js';

/** The document and the page (public, read-only). */
export const openApiPath = '/api/openapi.json';
export const openApiPagePrefix = '/api/docs';

/** How long the gateway waits for a service's part of the document. */
const PART_TIMEOUT_MS = 5_000;

interface Loaded {
  document: OpenApiDocument;
  /** Every service answered and nothing conflicted: the document may be kept. */
  whole: boolean;
}

/**
 * The management API's OpenAPI 3.1 document at `/api/openapi.json` and its page at `/api/docs`.
 * All-in-one, every service's routes are this app's. Distributed, each service serves its part
 * (`serviceOpenApiPath`); the first request fetches and merges them with the gateway's own. A
 * whole document is kept for the life of the process (routes change only with a deployment). A
 * service that does not answer leaves a partial document, answered with a note naming it and not
 * kept, so the next request asks again: the page stays useful for the other services during an
 * outage, and the gap is said rather than hidden.
 */
export async function registerOpenApiRoutes(app: App, config: GatewayConfig, version: string): Promise<void> {
  const info: OpenApiInfo = {
    title: openApiTitle,
    version,
    description:
      "The console's management API under `/api`: answers in the `{success, message, data}` envelope; callers authenticate with the session cookie or an access token, " +
      "with `New-Api-User` naming the same user. The relay's provider-compatible routes are listed with links to the providers' references. " +
      `Browsable at \`${openApiPagePrefix}\`.`,
  };
  const load = isDistributed(config)
    ? mergedLoader(app, info, serviceUrls(config))
    : async (): Promise<Loaded> => ({ document: openApiDocument(app, info), whole: true });
  const documents = keptWhenWhole(load);

  app.get(
    openApiPath,
    {
      schema: {
        summary: 'This document',
        description: `The OpenAPI 3.1 document of the management API (browsable at \`${openApiPagePrefix}\`).`,
        tags: ['openapi'],
      },
      config: { access: 'public' },
    },
    () => documents(),
  );
  await registerOpenApiPage(app, { prefix: openApiPagePrefix, load: documents });
}

function serviceUrls(config: GatewayConfig): Record<ServiceName, string> {
  return {
    identity: config.IDENTITY_URL!,
    billing: config.BILLING_URL!,
    channels: config.CHANNELS_URL!,
    relay: config.RELAY_URL!,
    notifier: config.NOTIFIER_URL!,
  };
}

/** `load`'s document, kept once whole; concurrent first requests share one load. */
function keptWhenWhole(load: () => Promise<Loaded>): () => Promise<OpenApiDocument> {
  let kept: OpenApiDocument | undefined;
  let loading: Promise<Loaded> | undefined;
  return async () => {
    if (kept) return kept;
    loading ??= load().finally(() => {
      loading = undefined;
    });
    const { document, whole } = await loading;
    if (whole) kept = document;
    return document;
  };
}

/** Distributed: the gateway's own document (this route, the page) with every service's part merged in. */
function mergedLoader(app: App, info: OpenApiInfo, urls: Record<ServiceName, string>): () => Promise<Loaded> {
  return async () => {
    const answers = await Promise.all(
      services.map(async (service): Promise<OpenApiPart | ServiceName> => {
        try {
          return { source: service, document: await fetchPart(urls[service]) };
        } catch (error) {
          app.outageLog.report(app.log, `openapi ${service}`, { reason: (error as Error).message }, `${service} did not give its part of the OpenAPI document`);
          return service;
        }
      }),
    );
    const parts = answers.filter((answer): answer is OpenApiPart => typeof answer !== 'string');
    const unavailable = answers.filter((answer): answer is ServiceName => typeof answer === 'string');
    const { document, conflicts } = mergeOpenApiDocuments(openApiDocument(app, info), parts);
    if (unavailable.length === 0 && conflicts.length === 0) return { document, whole: true };
    const note = [
      unavailable.length > 0
        ? `the ${unavailable.join(', ')} service${unavailable.length > 1 ? 's' : ''} did not answer: ${unavailable.length > 1 ? 'their' : 'its'} routes are missing`
        : '',
      conflicts.length > 0 ? `the services disagree (${conflicts.join('; ')}): the first one's is shown` : '',
    ].filter(Boolean);
    return {
      document: {
        ...document,
        info: { ...document.info, description: `**Incomplete**: ${note.join('; ')}. Ask again later.\n\n${info.description}` },
        'x-aigw-incomplete': { unavailable, conflicts },
      },
      whole: false,
    };
  };
}

async function fetchPart(baseUrl: string): Promise<OpenApiDocument> {
  const response = await fetch(new URL(serviceOpenApiPath, baseUrl), { signal: AbortSignal.timeout(PART_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`answered HTTP ${response.status}`);
  return openApiPartSchema.parse(await response.json());
}
