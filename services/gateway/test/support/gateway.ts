import type { LightMyRequestResponse } from 'fastify';
import { createSilentLogger, type App } from '@aigw/platform';
import { createTestEnvironment, type Backend, type TestEnvironment } from '@aigw/platform/testing';
import { buildGateway, type GatewayOptions } from '../../src/app';
import { gatewayConfigSchema } from '../../src/config';

export const ROOT_PASSWORD = 'root-pass-1234';

/** A signed-in console user: the session cookie and the id for New-Api-User. */
export interface Session {
  id: number;
  cookie: string;
}

export interface CallOptions {
  session?: Session;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestGateway {
  app: App;
  env: TestEnvironment;
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS', url: string, options?: CallOptions): Promise<LightMyRequestResponse>;
  login(username: string, password: string): Promise<Session>;
  register(username: string, password: string, extra?: Record<string, unknown>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** What a test may set beyond the env: the fixed third-party endpoints, pointed at a loopback fake; a logger to read. */
export type GatewayOverrides = Partial<Pick<GatewayOptions, 'oauthEndpoints' | 'logger'>>;

/**
 * The all-in-one gateway with every service mounted, on the given backend, isolated by the test
 * environment's namespace. Rate limits are off unless the test sets them; a variable set to
 * undefined is unset (`INITIAL_ROOT_PASSWORD: undefined` starts with the factory password).
 */
export async function startGateway(
  backend: Backend,
  env: Record<string, string | undefined> = {},
  shared?: TestEnvironment,
  overrides: GatewayOverrides = {},
): Promise<TestGateway> {
  // A shared environment outlives this gateway (restart tests): closing leaves it to its owner.
  const environment = shared ?? (await createTestEnvironment(backend));
  const config = gatewayConfigSchema.parse({
    DATA_DIR: environment.dataDir,
    DATABASE_URL: environment.databaseUrl,
    NAMESPACE: environment.namespace,
    INITIAL_ROOT_PASSWORD: ROOT_PASSWORD,
    GLOBAL_API_RATE_LIMIT: '0',
    CRITICAL_RATE_LIMIT: '0',
    ...env,
  });
  const app = await buildGateway({
    config,
    logger: createSilentLogger(),
    infra: environment.infra,
    version: 'test',
    webDistDir: config.WEB_DIST_DIR,
    schemas: {
      identity: environment.schema('identity'),
      billing: environment.schema('billing'),
      channels: environment.schema('channels'),
      relay: environment.schema('relay'),
      notifier: environment.schema('notifier'),
    },
    ...overrides,
  });
  await app.ready();

  const call: TestGateway['call'] = (method, url, options = {}) => {
    // Tests read the server's English unless they ask for a language; '' sends no Accept-Language.
    const headers: Record<string, string> = { 'accept-language': 'en-US', ...options.headers };
    if (headers['accept-language'] === '') delete headers['accept-language'];
    if (options.session) {
      // Beside any cookie the test sends itself (an OAuth state, say).
      headers.cookie = [headers.cookie, `session=${options.session.cookie}`].filter(Boolean).join('; ');
      headers['new-api-user'] ??= String(options.session.id);
    }
    return app.inject({ method, url, headers, ...(options.body === undefined ? {} : { payload: options.body as object }) });
  };

  return {
    app,
    env: environment,
    call,
    async login(username, password) {
      // No language: signing in keeps the user's (a sign-in records the console's language).
      const response = await call('POST', '/api/user/login', { body: { username, password }, headers: { 'accept-language': '' } });
      const body = response.json();
      if (!body.success) throw new Error(`login of ${username} failed: ${body.message}`);
      const cookie = response.cookies.find((entry) => entry.name === 'session');
      return { id: body.data.id, cookie: cookie!.value };
    },
    register: (username, password, extra = {}) =>
      call('POST', '/api/user/register', { body: { username, password, password2: password, ...extra }, headers: { 'accept-language': '' } }),
    async close() {
      await app.close();
      if (!shared) await environment.cleanup();
    },
  };
}
