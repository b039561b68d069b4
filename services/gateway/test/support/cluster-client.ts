import net from 'node:net';
import type { TestEnvironment } from '@aigw/platform/testing';
import { entryOf, serviceNames, startCluster, type Cluster, type ProcessName } from '../../../../tools/cluster/cluster.mjs';

// A console client and free ports, for the end-to-end tests that run the distributed cluster
// (cluster.test.ts, cluster-faults.test.ts).

export interface Envelope<T = any> {
  success: boolean;
  message: string;
  data?: T;
}

/** A console client: keeps the session cookie and sends New-Api-User like the console does. */
export class Client {
  cookie?: string;
  userId?: number;

  constructor(private readonly baseUrl: string) {}

  async call<T = any>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Envelope<T> }> {
    const sent: Record<string, string> = {
      // Tests read the server's English unless they ask for a language; '' sends no Accept-Language.
      'accept-language': 'en-US',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(this.cookie ? { cookie: this.cookie } : {}),
      ...(this.userId ? { 'new-api-user': String(this.userId) } : {}),
      ...headers,
    };
    if (sent['accept-language'] === '') delete sent['accept-language'];
    const response = await fetch(`${this.baseUrl}${url}`, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const session = response.headers.getSetCookie().find((cookie) => cookie.startsWith('session='));
    if (session) {
      const pair = session.split(';', 1)[0]!;
      this.cookie = pair === 'session=' ? undefined : pair;
    }
    return { status: response.status, body: (await response.json()) as Envelope<T> };
  }

  async login(username: string, password: string): Promise<Envelope> {
    // No language: signing in keeps the user's (a sign-in records the console's language).
    const { body } = await this.call('POST', '/api/user/login', { username, password }, { 'accept-language': '' });
    if (body.success) this.userId = body.data.id;
    return body;
  }
}

/** Free TCP ports on 127.0.0.1, held together while choosing so they differ. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/**
 * The distributed cluster from the compiled services on the environment's PostgreSQL, NATS and
 * Redis, on free ports; `env` adds to (or overrides) the test defaults. Every output line lands
 * in `logs` (printed too with CLUSTER_TEST_VERBOSE); a failed start throws with the last of them.
 */
export async function startTestCluster(environment: TestEnvironment, env: Record<string, string>, logs: string[]): Promise<Cluster> {
  for (const name of [...serviceNames, 'gateway'] as const) {
    try {
      entryOf(name);
    } catch (error) {
      throw new Error(`the cluster tests start the compiled services: ${(error as Error).message} (npm test runs it in pretest)`, { cause: error });
    }
  }
  const [gateway, ...servicePorts] = await freePorts(1 + serviceNames.length);
  const ports: Partial<Record<ProcessName, number>> = { gateway };
  serviceNames.forEach((name, index) => (ports[name] = servicePorts[index]));
  try {
    return await startCluster({
      env: {
        PATH: process.env.PATH,
        ...environment.processEnv(),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        GLOBAL_API_RATE_LIMIT: '0',
        CRITICAL_RATE_LIMIT: '1000',
        SHUTDOWN_GRACE_MS: '5000',
        ...env,
      },
      ports,
      log: (name, line) => {
        logs.push(`[${name}] ${line}`);
        if (process.env.CLUSTER_TEST_VERBOSE) process.stdout.write(`[${name}] ${line}\n`);
      },
    });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- cluster output ---\n${logs.slice(-60).join('\n')}`, { cause: error });
  }
}
