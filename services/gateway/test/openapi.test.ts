import { execFile } from 'node:child_process';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { RouteOptions } from 'fastify';
import { z } from 'zod';
import { createApp, createSilentLogger, declaredRoutes, serveServiceOpenApi, type App } from '@aigw/platform';
import { createTestEnvironment, startTcpProxy, type TcpProxy, type TestEnvironment } from '@aigw/platform/testing';
import billingPlugin, { billingSettings } from '@aigw/billing/plugin';
import channelsPlugin, { channelsSettings } from '@aigw/channels/plugin';
import identityPlugin, { identitySettings } from '@aigw/identity/plugin';
import notifierPlugin, { notifierSettings } from '@aigw/notifier/plugin';
import relayPlugin, { relaySettings } from '@aigw/relay/plugin';
import { gatewayConfigSchema, withGeneratedSecrets } from '../src/config';
import type { ServiceName } from '../src/route-table';
import { startGateway, type TestGateway } from './support/gateway';

/**
 * The management API's OpenAPI document (`/api/openapi.json`, `/api/docs`): valid OpenAPI 3.1,
 * every registered route in it, request schemas equal to the routes' own zod schemas, and the
 * distributed gateway's merged document equal to the all-in-one one.
 */

const repositoryRoot = path.join(__dirname, '../../..');
const INTERNAL_SECRET = 'openapi-test-internal-secret-0123456789';

/**
 * @seriousme/openapi-schema-validator is ESM only and reads its schemas through import.meta, which
 * jest's CommonJS runtime cannot load: it runs in a Node process of its own, as its CLI would.
 */
async function validateOpenApi(document: unknown): Promise<{ valid: boolean; version?: string; errors?: unknown }> {
  const script = [
    "import { Validator } from '@seriousme/openapi-schema-validator';",
    "let input = '';",
    'for await (const chunk of process.stdin) input += chunk;',
    'const validator = new Validator();',
    'const result = await validator.validate(JSON.parse(input));',
    'process.stdout.write(JSON.stringify({ ...result, version: validator.version }));',
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: repositoryRoot, maxBuffer: 64 << 20 }, (error, stdout) => {
      if (error) reject(new Error(`the validator did not run: ${error.message}`, { cause: error }));
      else resolve(JSON.parse(stdout));
    });
    child.stdin!.end(JSON.stringify(document));
  });
}

/** A Fastify route path as the document lists it: `:id` is `{id}`, the Gemini wildcard `{model}:{method}`. */
function documentPath(url: string): string {
  return url.replace(/\/models\/\*$/, '/models/{model}:{method}').replace(/:(\w+)/g, '{$1}');
}

/** Every operation of a document as `METHOD path`. */
function operationsOf(document: Document): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
}

/**
 * Every route of the app under `/api` as Fastify prints its routing tree (`METHOD path`, HEAD
 * left out), to catch routes registered outside the services too (the gateway's own).
 */
function printedApiRoutes(app: App): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+) \(([^)]+)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const url = stack.join('');
    if (!url.startsWith('/api/')) continue;
    for (const method of match[3]!.split(', ')) if (method !== 'HEAD') routes.push(`${method} ${url}`);
  }
  return routes;
}

interface Operation {
  tags?: string[];
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: unknown }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, unknown>;
  externalDocs?: { url: string };
  'x-aigw-access'?: string;
  'x-aigw-service'?: string;
}

interface Document {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
  tags: Array<{ name: string }>;
  'x-aigw-incomplete'?: { unavailable: string[]; conflicts: string[] };
}

/** A standalone service as runService builds it (signed identities, its part of the document, the plugin), on a free port. */
interface Standalone {
  service: ServiceName;
  app: App;
  url: string;
  /** Every route it registered, with its zod schemas. */
  routes: RouteOptions[];
}

async function startStandalone(service: ServiceName, register: (app: App) => PromiseLike<unknown>): Promise<Standalone> {
  const app = createApp({ logger: createSilentLogger(), bodyLimitBytes: 20 * 1024 * 1024, internalSecret: INTERNAL_SECRET });
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    if (route.method !== 'HEAD') routes.push(route);
  });
  serveServiceOpenApi(app, service);
  await register(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { service, app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, routes };
}

/** The five services on their own apps, as the distributed topology runs them, on one isolated environment. */
async function startServices(env: TestEnvironment): Promise<Standalone[]> {
  const config = gatewayConfigSchema.parse({ DATA_DIR: env.dataDir, NAMESPACE: env.namespace });
  const settings = withGeneratedSecrets(config);
  const storage = { infra: env.infra, databaseUrl: env.databaseUrl, dataDir: env.dataDir };
  // In the order the all-in-one gateway registers them: responders before their requesters.
  return [
    await startStandalone('identity', (app) =>
      app.register(identityPlugin, {
        ...storage,
        schema: env.schema('identity'),
        version: 'test',
        reachableBeyondLoopback: false,
        ...identitySettings(settings),
      }),
    ),
    await startStandalone('billing', (app) => app.register(billingPlugin, { ...storage, schema: env.schema('billing'), ...billingSettings(settings) })),
    await startStandalone('channels', (app) => app.register(channelsPlugin, { ...storage, schema: env.schema('channels'), ...channelsSettings(settings) })),
    await startStandalone('relay', (app) => app.register(relayPlugin, { ...storage, schema: env.schema('relay'), ...relaySettings(settings) })),
    await startStandalone('notifier', (app) => app.register(notifierPlugin, { ...storage, schema: env.schema('notifier'), ...notifierSettings(settings) })),
  ];
}

/** A zod schema as JSON Schema 2020-12 (the document's dialect), as a route's validator reads it. */
function jsonSchemaOf(schema: unknown): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema as z.ZodType, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' });
  return json;
}

describe('the OpenAPI document of the management API', () => {
  let allInOne: TestGateway;
  let document: Document;
  let env: TestEnvironment;
  let standalone: Standalone[] = [];
  let notifierLink: TcpProxy | undefined;
  const distributed: TestGateway[] = [];

  /** A distributed gateway in front of the standalone services, the notifier's through `notifierUrl`. */
  const startDistributed = async (notifierUrl?: string) => {
    const urls = Object.fromEntries(standalone.map(({ service, url }) => [`${service.toUpperCase()}_URL`, url]));
    const gateway = await startGateway('in-process', { ...urls, ...(notifierUrl ? { NOTIFIER_URL: notifierUrl } : {}), INTERNAL_SECRET }, env);
    distributed.push(gateway);
    return gateway;
  };

  beforeAll(async () => {
    allInOne = await startGateway('in-process');
    const response = await allInOne.call('GET', '/api/openapi.json');
    expect(response.statusCode).toBe(200);
    document = response.json();
    env = await createTestEnvironment('in-process');
    standalone = await startServices(env);
  });

  afterAll(async () => {
    for (const gateway of distributed) await gateway.close();
    await notifierLink?.close();
    for (const { app } of standalone.reverse()) await app.close();
    await env?.cleanup();
    await allInOne?.close();
  });

  it('is valid OpenAPI 3.1, named after the product, with the gateway version', async () => {
    expect(await validateOpenApi(document)).toEqual({ valid: true, version: '3.1' });
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: 'AI Gateway management API', version: 'test' });
    // The validator does fail a broken document (this check is not vacuous).
    const { info: _info, ...withoutInfo } = document;
    expect(await validateOpenApi(withoutInfo)).toMatchObject({ valid: false });
  });

  it('describes every registered /api route, and nothing that is not one', () => {
    const described = operationsOf(document).filter((operation) => operation.split(' ')[1]!.startsWith('/api/'));
    const declared = declaredRoutes(allInOne.app)
      .filter((route) => route.url.startsWith('/api/'))
      .map((route) => `${route.method} ${documentPath(route.url)}`);
    expect(declared.length).toBeGreaterThan(100);
    // Beside the services' routes, the gateway's own: this document (its page and the page's files are not API routes).
    expect(described.sort()).toEqual([...declared, 'GET /api/openapi.json'].sort());

    // Fastify's own routing tree agrees: no /api route of any origin is missing.
    const normalize = (operation: string) => operation.replace(/\/$/, '');
    const printed = printedApiRoutes(allInOne.app).filter((operation) => !operation.split(' ')[1]!.startsWith('/api/docs'));
    expect(printed.map((operation) => normalize(documentPath(operation))).sort()).toEqual(described.map(normalize).sort());

    for (const route of declaredRoutes(allInOne.app).filter((entry) => entry.url.startsWith('/api/'))) {
      const operation = document.paths[documentPath(route.url)]![route.method.toLowerCase()]!;
      expect({ route: route.url, access: operation['x-aigw-access'], service: operation['x-aigw-service'] }).toEqual({
        route: route.url,
        access: route.access,
        service: route.service,
      });
    }
  });

  it("lists the relay's provider-compatible routes with a link to the provider's reference, without their bodies", () => {
    const relayRoutes = declaredRoutes(allInOne.app).filter(
      (route) => route.service === 'relay' && !route.url.startsWith('/api/') && !route.url.startsWith('/internal/'),
    );
    expect(relayRoutes.length).toBeGreaterThan(50);
    for (const route of relayRoutes) {
      const operation = document.paths[documentPath(route.url)]?.[route.method.toLowerCase()];
      expect({ route: `${route.method} ${route.url}`, docs: operation?.externalDocs?.url, body: operation?.requestBody }).toEqual({
        route: `${route.method} ${route.url}`,
        docs: expect.stringMatching(/^https:\/\//),
        body: undefined,
      });
    }
    const docsOf = (path: string, method: string) => document.paths[path]![method]!.externalDocs!.url;
    expect(docsOf('/v1/chat/completions', 'post')).toBe('https://platform.openai.com/docs/api-reference/chat');
    expect(docsOf('/v1/messages', 'post')).toBe('https://docs.anthropic.com/en/api/messages');
    expect(docsOf('/v1beta/models/{model}:{method}', 'post')).toBe('https://ai.google.dev/api');
    expect(docsOf('/mj/submit/imagine', 'post')).toBe('https://github.com/novicezk/midjourney-proxy');
    expect(docsOf('/suno/submit/{action}', 'post')).toBe('https://github.com/Suno-API/Suno-API');
    // Health checks, metrics and the services' /internal/ routes are not the API.
    expect(Object.keys(document.paths).filter((path) => !/^\/(api|v1|v1beta|pg|dashboard|mj|mj-fast|mj-relax|mj-turbo|suno)\//.test(path))).toEqual([]);
  });

  it("gives every request schema as the route's own zod schema says (no drift)", () => {
    const counts = { body: 0, query: 0, path: 0 };
    for (const { routes } of standalone) {
      for (const route of routes.filter((entry) => entry.url.startsWith('/api/') && entry.schema)) {
        const method = [route.method].flat()[0]!.toLowerCase();
        const operation = document.paths[documentPath(route.url)]![method]!;
        const where = `${method.toUpperCase()} ${route.url}`;
        if (route.schema!.body) {
          counts.body += 1;
          expect({ where, body: operation.requestBody?.content['application/json']?.schema }).toEqual({ where, body: jsonSchemaOf(route.schema!.body) });
        }
        for (const [part, location] of [
          ['querystring', 'query'],
          ['params', 'path'],
        ] as const) {
          const zodSchema = route.schema![part];
          if (!zodSchema) continue;
          counts[location] += 1;
          const json = jsonSchemaOf(zodSchema) as { properties: Record<string, unknown>; required?: string[] };
          const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === location);
          expect({ where, parameters: parameters.map(({ name, required, schema }) => ({ name, required, schema })) }).toEqual({
            where,
            // Path parameters are always required (OpenAPI).
            parameters: Object.entries(json.properties).map(([name, schema]) => ({
              name,
              required: location === 'path' || (json.required ?? []).includes(name),
              schema,
            })),
          });
        }
      }
    }
    // Enough of each to matter (the failure shows the counts).
    expect({ ...counts, enough: Object.values(counts).every((count) => count >= 20) }).toMatchObject({ enough: true });
  });

  it('is served as a browsable page showing the same document', async () => {
    const page = await allInOne.call('GET', '/api/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<title>AI Gateway management API</title>');
    expect(page.body).toContain('/api/docs/static/swagger-ui-bundle.js');
    expect((await allInOne.call('GET', '/api/docs/static/swagger-ui-bundle.js')).statusCode).toBe(200);
    expect((await allInOne.call('GET', '/api/docs/json')).json()).toEqual(document);
    // swagger-ui's YAML copy is not served (rendered anew per request, it would cost the event loop a quarter of a second each).
    expect((await allInOne.call('GET', '/api/docs/yaml')).statusCode).toBe(404);
  });

  it('is the same document in the distributed topology, merged from every service', async () => {
    for (const { service, app } of standalone) {
      const part = await app.inject({ method: 'GET', url: '/openapi.json' });
      expect({ service, status: part.statusCode }).toEqual({ service, status: 200 });
      expect(await validateOpenApi(part.json())).toMatchObject({ valid: true });
    }
    const gateway = await startDistributed();
    const merged: Document = (await gateway.call('GET', '/api/openapi.json')).json();
    expect(Object.keys(merged.paths).sort()).toEqual(Object.keys(document.paths).sort());
    expect(merged).toEqual(document);
    expect((await gateway.call('GET', '/api/docs/json')).json()).toEqual(document);
  });

  it('answers a partial document naming a service that is down, and keeps only a whole one', async () => {
    const notifier = standalone.find(({ service }) => service === 'notifier')!;
    notifierLink = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(notifier.url).port) });
    const gateway = await startDistributed(notifierLink.via(notifier.url));

    await notifierLink.cut();
    const partial = await gateway.call('GET', '/api/openapi.json');
    expect(partial.statusCode).toBe(200);
    const incomplete: Document = partial.json();
    expect(incomplete['x-aigw-incomplete']).toEqual({ unavailable: ['notifier'], conflicts: [] });
    expect(incomplete.info.description).toMatch(/^\*\*Incomplete\*\*: the notifier service did not answer: its routes are missing/);
    expect(Object.keys(incomplete.paths).filter((path) => path.startsWith('/api/webhook'))).toEqual([]);
    expect(incomplete.paths['/api/channel/']).toEqual(document.paths['/api/channel/']);
    expect(await validateOpenApi(incomplete)).toMatchObject({ valid: true });

    // Not kept: once the notifier is back the next request has it all, and that one is kept.
    await notifierLink.restore();
    expect((await gateway.call('GET', '/api/openapi.json')).json()).toEqual(document);
    await notifierLink.cut();
    expect((await gateway.call('GET', '/api/openapi.json')).json()).toEqual(document);
  });
});
