import swagger, { formatParamUrl, type SwaggerTransform, type SwaggerTransformObject } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Access } from '@aigw/contracts';
import type { App } from '../app.js';
import { declaredRoutes } from '../auth.js';
import { SESSION_COOKIE } from '../cookies.js';
import { compatibleApiOf, compatibleApis, compatibleRouteOf, compatibleSummaryOf, keylessCompatibleRoutes, type ExternalDocs } from './compatible-apis.js';

/** The product's name (README.md) and what the document describes. */
export const openApiTitle = 'AI Gateway management API';

/** Where a standalone service serves its part of the document, for the gateway to merge (not routed by the gateway). */
export const serviceOpenApiPath = '/openapi.json';

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

export interface OpenApiTag {
  name: string;
  description?: string;
  externalDocs?: ExternalDocs;
}

/** An OpenAPI 3.1 document, as far as this code reads and writes it. */
export interface OpenApiDocument {
  openapi: string;
  info: OpenApiInfo;
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  tags?: OpenApiTag[];
  externalDocs?: ExternalDocs;
  [extension: `x-${string}`]: unknown;
}

/** How a console caller authenticates (docs/architecture.md section 6.1), and a relay key. */
const securitySchemes = {
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'The console session (`POST /api/user/login` sets it). Send `New-Api-User` with it.',
  },
  accessToken: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'A system access token (`POST /api/user/token`), with or without `Bearer `. Send `New-Api-User` with it.',
  },
  newApiUser: {
    type: 'apiKey',
    in: 'header',
    name: 'New-Api-User',
    description: 'The id of the signed-in user: must name the same user as the session or token.',
  },
  relayKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An `sk-` API key (`POST /api/token/`); the Anthropic routes also take `x-api-key`, the Gemini routes `x-goog-api-key` or `?key=`, the Midjourney routes `mj-api-secret`.',
  },
} as const;

const consoleSecurity: Array<Record<string, string[]>> = [
  { session: [], newApiUser: [] },
  { accessToken: [], newApiUser: [] },
];

const accessNotes: Record<Access, string> = {
  public: 'Access: anyone.',
  user: 'Access: a signed-in user (role 1 or above).',
  admin: 'Access: an admin (role 10 or above).',
  root: 'Access: the super admin (role 100).',
};

/** What every console route answers (docs/architecture.md section 7). */
const envelopeSchema = {
  type: 'object',
  description:
    'The console envelope. `success: false` with HTTP 200 is a business failure or invalid input; `message` says which (a validation failure names the field).',
  properties: { success: { type: 'boolean' }, message: { type: 'string' }, data: { description: 'The answer, when there is one.' } },
  required: ['success', 'message'],
};

const envelopeReference = { $ref: '#/components/schemas/Envelope' };
const envelopeContent = { 'application/json': { schema: envelopeReference } };

function envelopeResponses(access: Access): Record<string, unknown> {
  return {
    '200': { description: 'The envelope: `data` on success, `success: false` and the reason in `message` otherwise.', content: envelopeContent },
    ...(access === 'public'
      ? {}
      : {
          '401': { description: 'Not signed in, or `New-Api-User` does not name the signed-in user.', content: envelopeContent },
          '403': { description: "The role is below the route's access (or the super admin must change the factory password first).", content: envelopeContent },
        }),
  };
}

const methodsOf = (method: string | string[]) => [method].flat();

/**
 * Which service registered a route (the access control's record), so operations name their
 * owner; undefined for the app's own routes (the gateway's proxies, health checks).
 */
function serviceOf(app: App, methods: string[], url: string): string | undefined {
  return declaredRoutes(app).find((route) => route.url === url && methods.includes(route.method))?.service;
}

/** The tag of a management route: its resource, the path segment after `/api/`. */
const resourceOf = (url: string) => url.split('/')[2] || 'api';

/**
 * Swagger's per-route transform. Management routes (`/api/...`) declared by a service, or
 * carrying their own summary (the gateway's), are described from their zod schemas; the relay's
 * provider-compatible routes are listed with a summary and the provider's reference; everything
 * else (health checks, metrics, `/internal/`, the gateway's proxies and the docs page's files) is
 * left out.
 */
function describeRoute(app: App): SwaggerTransform {
  return (input) => {
    const { route, url } = input;
    const hidden = { schema: { hide: true }, url };
    if (input.schema?.hide || url.startsWith('/internal/')) return hidden;
    const methods = methodsOf(route.method);
    const service = serviceOf(app, methods, url);
    const access = route.config?.access ?? 'public';

    if (url.startsWith('/api/')) {
      if (!service && !input.schema?.summary) return hidden;
      const { schema } = jsonSchemaTransform(input);
      return {
        url,
        schema: {
          ...schema,
          tags: input.schema?.tags ?? [resourceOf(url)],
          description: [input.schema?.description, accessNotes[access]].filter(Boolean).join('\n\n'),
          security: access === 'public' ? [] : consoleSecurity,
          'x-aigw-access': access,
          'x-aigw-service': service ?? 'gateway',
          // Every service route answers the envelope; a gateway route says what it answers in its description.
          ...(service && !input.schema?.response ? { 'x-aigw-answer': 'envelope' } : {}),
        },
      };
    }

    const api = service ? methods.map((method) => compatibleApiOf(method, url)).find(Boolean) : undefined;
    if (!api) return hidden;
    const routeUrl = compatibleRouteOf(url);
    return {
      url: routeUrl,
      schema: {
        summary: compatibleSummaryOf(formatParamUrl(routeUrl)),
        description: `${api.tag}: the request and the answer are the provider's (see its reference).`,
        tags: [api.tag],
        externalDocs: api.docsFor?.(url) ?? api.externalDocs,
        security: access !== 'public' ? consoleSecurity : keylessCompatibleRoutes.has(url) ? [] : [{ relayKey: [] }],
        'x-aigw-access': access,
        'x-aigw-service': service,
        'x-aigw-answer': 'provider',
      },
    };
  };
}

/** What an operation marked by `describeRoute` answers. */
function responsesOf(answer: unknown, access: Access): Record<string, unknown> | undefined {
  if (answer === 'envelope') return envelopeResponses(access);
  if (answer === 'provider') return { default: { description: "The provider's answer, and errors in its shape (see the reference)." } };
  return undefined;
}

/** Tags in the document's order: the management resources by name, then the compatible APIs. */
export function sortTags(tags: OpenApiTag[]): OpenApiTag[] {
  const compatible = new Set(compatibleApis.map((api) => api.tag));
  return [...tags].sort((a, b) => Number(compatible.has(a.name)) - Number(compatible.has(b.name)) || a.name.localeCompare(b.name));
}

/**
 * Swagger's whole-document transform: the zod registry's named schemas (components), the
 * envelope answers of the console routes, and the tag list (the compatible APIs with their
 * references).
 */
const describeDocument: SwaggerTransformObject = (input) => {
  const document = jsonSchemaTransformObject(input) as unknown as OpenApiDocument;
  const paths: OpenApiDocument['paths'] = {};
  const used = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, value]) => {
        const { 'x-aigw-answer': answer, ...operation } = value as {
          'x-aigw-answer'?: unknown;
          'x-aigw-access'?: Access;
          tags?: string[];
          responses?: unknown;
        };
        for (const tag of operation.tags ?? []) used.add(tag);
        return [method, { ...operation, responses: responsesOf(answer, operation['x-aigw-access'] ?? 'public') ?? operation.responses }];
      }),
    );
  }
  const compatible = new Map(compatibleApis.map((api) => [api.tag, api]));
  const tags = [...used].map((name): OpenApiTag => {
    const api = compatible.get(name);
    return api ? { name, description: api.description, externalDocs: api.externalDocs } : { name };
  });
  return {
    ...document,
    paths,
    tags: sortTags(tags),
    components: { ...document.components, schemas: { ...document.components?.schemas, Envelope: envelopeSchema } },
  } as ReturnType<SwaggerTransformObject>;
};

/**
 * Collects the app's routes for its OpenAPI document (createApp calls it, so every app has it
 * before any service plugin registers a route; routes added on the app itself before its plugins
 * load, such as runService's health checks, are not collected, and need not be). Only an
 * `onRoute` hook: nothing runs per request; the document is built on the first `openApiDocument`
 * call and kept.
 */
export function collectOpenApiRoutes(app: App): void {
  void app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      // Set where the document is served (openApiDocument): the version is the gateway's.
      info: { title: openApiTitle, version: '0.0.0' },
      components: { securitySchemes },
    },
    transform: describeRoute(app),
    transformObject: describeDocument,
    // OpenAPI 3.1 schemas are JSON Schema 2020-12, which has `const`: the zod schema's JSON as it is.
    convertConstToEnum: false,
  });
}

/** The app's document with `info` set (a copy: callers may change it). Call after the app is ready. */
export function openApiDocument(app: App, info: OpenApiInfo): OpenApiDocument {
  const document = structuredClone(app.swagger() as unknown as OpenApiDocument);
  return { ...document, info };
}

/**
 * A standalone service's part of the document at `serviceOpenApiPath`, built on the first request
 * and kept; the gateway fetches and merges every service's (it does not route the path).
 */
export function serveServiceOpenApi(app: App, service: string): void {
  let document: OpenApiDocument | undefined;
  app.get(serviceOpenApiPath, { schema: { hide: true }, config: { access: 'public' } }, async () => {
    document ??= openApiDocument(app, {
      title: `${openApiTitle}: the ${service} service's part`,
      // The product's version is the gateway's: it sets it on the merged document.
      version: 'internal',
      description: `What the gateway merges into \`/api/openapi.json\`: the routes of ${service}.`,
    });
    return document;
  });
}
