import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localizeMessage } from '@aigw/contracts';
import { classifyAddress } from '../src/egress/address-policy.js';
import { createEgressClient, resolveEgressHost, type EgressClient, type EgressClientOptions } from '../src/egress/egress-client.js';
import { EgressBlockedError, EgressError } from '../src/egress/egress-errors.js';
import { waitFor } from '../src/testing/infrastructure.js';

/**
 * A loopback canary: the only server the blocked attempts could reach. It counts TCP connections,
 * so "blocked" means no socket was ever opened, not merely that the answer was thrown away.
 */
interface Canary {
  server: Server;
  port: number;
  connections: number;
  paths: string[];
  hosts: string[];
}

/** Streaming route: the next chunk is written only when the test asks for it. */
let releaseChunk: (() => void) | undefined;

async function startCanary(): Promise<Canary> {
  const canary = { connections: 0, paths: [] as string[], hosts: [] as string[] } as Canary;
  canary.server = createServer((request, response) => {
    canary.paths.push(request.url ?? '');
    canary.hosts.push(request.headers.host ?? '');
    route(request.url ?? '/', response);
  });
  canary.server.on('connection', () => canary.connections++);
  canary.server.listen(0, '127.0.0.1');
  await once(canary.server, 'listening');
  canary.port = (canary.server.address() as AddressInfo).port;
  return canary;
}

function route(path: string, response: ServerResponse): void {
  if (path === '/redirect') {
    response.writeHead(302, { location: `http://127.0.0.1:${canary.port}/internal-secret` }).end();
  } else if (path === '/hang') {
    // never answers: the headers timeout must fire
  } else if (path === '/stall') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"partial":'); // then silence: the body timeout must fire
  } else if (path === '/stream') {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    const next = () => {
      sent++;
      response.write(`data: ${sent}\n\n`);
      if (sent === 3) response.end();
      else releaseChunk = next;
    };
    next();
  } else if (path === '/big') {
    response.writeHead(200, { 'content-type': 'application/json' }); // chunked, no Content-Length
    response.write('['.padEnd(2048, ' '));
    response.end(']');
  } else if (path === '/big-declared') {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
    response.end('{}'.padEnd(4096, ' '));
  } else {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, path }));
  }
}

let canary: Canary;
let allowPrivate = false;
const clients: EgressClient[] = [];

/** The injected resolver stands in for a DNS server: `rebind.test` answers loopback. */
const fakeDns: Record<string, string[]> = {
  'rebind.test': ['127.0.0.1'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
};

function client(overrides: Partial<EgressClientOptions> = {}): EgressClient {
  const created = createEgressClient({
    allowPrivateNetwork: () => allowPrivate,
    connectTimeoutMs: 2_000,
    headersTimeoutMs: 5_000,
    bodyTimeoutMs: 5_000,
    keepAliveTimeoutMs: 5_000,
    resolve: async (hostname) => {
      const fake = fakeDns[hostname];
      if (fake) return fake.map((address) => ({ address, family: 4 }));
      const { promises } = await import('node:dns');
      return promises.lookup(hostname, { all: true });
    },
    ...overrides,
  });
  clients.push(created);
  return created;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  canary = await startCanary();
});

afterAll(async () => {
  await Promise.all(clients.map((each) => each.close()));
  canary.server.closeAllConnections();
  canary.server.close();
});

beforeEach(() => {
  allowPrivate = false;
});

describe('address policy', () => {
  it.each([
    ['0.1.2.3', '0.0.0.0/8'],
    ['10.255.0.1', '10.0.0.0/8'],
    ['100.127.255.255', '100.64.0.0/10'],
    ['127.8.8.8', '127.0.0.0/8'],
    ['169.254.169.254', '169.254.0.0/16'],
    ['172.31.255.255', '172.16.0.0/12'],
    ['192.0.0.8', '192.0.0.0/24'],
    ['192.0.2.1', '192.0.2.0/24'],
    ['192.88.99.1', '192.88.99.0/24'],
    ['192.168.1.1', '192.168.0.0/16'],
    ['198.19.255.255', '198.18.0.0/15'],
    ['198.51.100.7', '198.51.100.0/24'],
    ['203.0.113.9', '203.0.113.0/24'],
    ['239.1.1.1', '224.0.0.0/4'],
    ['250.0.0.1', '240.0.0.0/4'],
    ['::', '::/128'],
    ['::1', '::1/128'],
    ['::ffff:7f00:1', '::ffff:127.0.0.0/8'],
    ['::ffff:10.0.0.1', '::ffff:10.0.0.0/8'],
    ['64:ff9b::8.8.8.8', '64:ff9b::/96'],
    ['100::1', '100::/64'],
    ['2001:1::1', '2001::/23'],
    ['2001:db8::1', '2001:db8::/32'],
    ['fd00::1', 'fc00::/7'],
    ['fe80::1%eth0', 'fe80::/10'],
    ['ff02::1', 'ff00::/8'],
    ['::127.0.0.1', '::/96'],
  ])('%s is in %s', (address, cidr) => {
    expect(classifyAddress(address)?.cidr).toBe(cidr);
  });

  it.each(['8.8.8.8', '172.32.0.1', '100.63.255.255', '100.128.0.1', '198.20.0.1', '223.255.255.255', '2606:4700::1111', '::ffff:8.8.8.8', '2001:200::1'])(
    '%s is public',
    (address) => {
      expect(classifyAddress(address)).toBeUndefined();
    },
  );
});

describe('S1: the SSRF corpus is blocked and the canary sees no connection', () => {
  const port = () => canary.port;
  const addressCases: Array<[string, () => string]> = [
    ['127.0.0.1', () => `http://127.0.0.1:${port()}/`],
    ['0.0.0.0', () => `http://0.0.0.0:${port()}/`],
    ['[::]', () => `http://[::]:${port()}/`],
    ['[::1]', () => `http://[::1]:${port()}/`],
    ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${port()}/`],
    ['169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
    ['2130706433', () => `http://2130706433:${port()}/`],
    ['0x7f.1', () => `http://0x7f.1:${port()}/`],
    ['100.64.0.1', () => 'http://100.64.0.1/'],
    ['10.0.0.1', () => 'https://10.0.0.1/'],
    ['localhost (a name resolving to loopback)', () => `http://localhost:${port()}/`],
    ['rebind.test (DNS answers 127.0.0.1)', () => `http://rebind.test:${port()}/`],
    ['mixed.test (one public and one loopback record)', () => `http://mixed.test:${port()}/`],
  ];

  it.each(addressCases)('%s → blocked by address, naming the option', async (_name, url) => {
    const before = canary.connections;
    const error = await rejection(client().request(url()));
    expect(error).toBeInstanceOf(EgressBlockedError);
    expect((error as EgressBlockedError).reason).toBe('address');
    expect((error as Error).message).toMatch(/AllowPrivateNetworkUpstreams/);
    expect((error as EgressBlockedError).range?.label).toBeTruthy();
    expect(canary.connections).toBe(before);
  });

  // These rules hold even with private networks allowed.
  const urlCases: Array<[string, () => string, string]> = [
    ['file://', () => 'file:///etc/passwd', 'scheme'],
    ['gopher://', () => `gopher://127.0.0.1:${port()}/_PING`, 'scheme'],
    ['userinfo', () => `http://user:secret@127.0.0.1:${port()}/`, 'userinfo'],
    ['userinfo (name only)', () => `http://admin@127.0.0.1:${port()}/`, 'userinfo'],
    ['port 22', () => 'http://127.0.0.1:22/', 'port'],
    ['port 25 on a name', () => 'http://rebind.test:25/', 'port'],
    ['not a URL', () => 'not a url', 'invalid_url'],
  ];

  it.each(urlCases)('%s → blocked whatever the option says', async (_name, url, reason) => {
    for (const allowed of [false, true]) {
      allowPrivate = allowed;
      const before = canary.connections;
      const error = await rejection(client().request(url()));
      expect(error).toBeInstanceOf(EgressBlockedError);
      expect((error as EgressBlockedError).reason).toBe(reason);
      expect((error as Error).message).not.toContain('secret');
      expect(canary.connections).toBe(before);
    }
  });

  it('fetchJson goes through the same guard', async () => {
    const before = canary.connections;
    await expect(client().fetchJson(`http://2130706433:${canary.port}/`)).rejects.toBeInstanceOf(EgressBlockedError);
    expect(canary.connections).toBe(before);
  });
});

describe('check() judges a destination without connecting', () => {
  it('refuses what request() refuses, literal or resolved, and opens no socket', async () => {
    const egress = client();
    const before = canary.connections;
    for (const url of [`http://127.0.0.1:${canary.port}/`, `http://rebind.test:${canary.port}/`, `http://mixed.test:${canary.port}/`, 'http://[::1]/']) {
      const error = await rejection(egress.check(url));
      expect(error).toBeInstanceOf(EgressBlockedError);
      expect((error as EgressBlockedError).reason).toBe('address');
    }
    await expect(egress.check('ftp://example.com/')).rejects.toMatchObject({ reason: 'scheme' });
    await expect(egress.check('http://name.invalid/')).rejects.toMatchObject({ kind: 'dns' });
    expect(canary.connections).toBe(before);
  });

  it("words its refusals in the caller's language, naming the address and what lifts the rule", async () => {
    const egress = client();
    const resolved = (await rejection(egress.check(`http://rebind.test:${canary.port}/`))) as Error;
    expect(localizeMessage(resolved.message, 'en-US')).toBe(
      'egress blocked: rebind.test (resolves to 127.0.0.1) is a loopback address (127.0.0.0/8); ' +
        'private-network upstreams are off, a root admin can allow them with the option AllowPrivateNetworkUpstreams',
    );
    expect(localizeMessage(resolved.message, 'zh-CN')).toBe(
      '出站请求已拦截：rebind.test（解析为 127.0.0.1）属于 loopback 地址段（127.0.0.0/8）；已禁止访问私有网络中的上游，超级管理员可通过选项 AllowPrivateNetworkUpstreams 开启',
    );
    const port = (await rejection(egress.check('http://example.com:25/'))) as Error;
    expect(localizeMessage(port.message, 'en-US')).toBe('egress blocked: port 25 is not allowed (80, 443 or 1024 and above)');
    expect(localizeMessage(port.message, 'zh-CN')).toBe('出站请求已拦截：不允许端口 25（仅限 80、443 或 1024 及以上）');
  });

  it('passes public and, with the option on, private destinations', async () => {
    const egress = client();
    await expect(egress.check('https://93.184.216.34/hook')).resolves.toBeInstanceOf(URL);
    allowPrivate = true;
    await expect(egress.check(`http://rebind.test:${canary.port}/hook`)).resolves.toMatchObject({ hostname: 'rebind.test' });
  });
});

describe('with private networks allowed', () => {
  beforeEach(() => {
    allowPrivate = true;
  });

  it('the canary answers, on literal addresses and on names', async () => {
    const egress = client();
    for (const url of [`http://127.0.0.1:${canary.port}/hello?x=1`, `http://localhost:${canary.port}/hello`]) {
      const response = await egress.fetchJson(url);
      expect(response.statusCode).toBe(200);
      expect(response.data).toMatchObject({ ok: true });
    }
  });

  it('connects to the address the guarded lookup checked', async () => {
    // rebind.test exists only in the injected resolver: reaching the canary proves the socket used that answer.
    const response = await client().fetchJson(`http://rebind.test:${canary.port}/pinned`);
    expect(response.data).toEqual({ ok: true, path: '/pinned' });
    expect(canary.hosts.at(-1)).toBe(`rebind.test:${canary.port}`);
  });

  it('returns a 302 as is and does not follow it', async () => {
    const response = await client().request(`http://127.0.0.1:${canary.port}/redirect`);
    await response.body.dump();
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(`http://127.0.0.1:${canary.port}/internal-secret`);
    expect(canary.paths).not.toContain('/internal-secret');
  });

  it('pooled connections do not outlive switching the option off', async () => {
    const egress = client();
    await egress.fetchJson(`http://rebind.test:${canary.port}/warm`); // leaves a keep-alive socket in the pool
    allowPrivate = false;
    const before = canary.connections;
    const paths = canary.paths.length;
    await expect(egress.request(`http://rebind.test:${canary.port}/after`)).rejects.toBeInstanceOf(EgressBlockedError);
    expect(canary.connections).toBe(before);
    expect(canary.paths.length).toBe(paths);
  });

  it('streams the body chunk by chunk', async () => {
    const response = await client().request(`http://127.0.0.1:${canary.port}/stream`);
    const received: string[] = [];
    for await (const chunk of response.body) {
      received.push(String(chunk));
      // The server holds back the next event until this one has arrived here.
      const release = releaseChunk;
      releaseChunk = undefined;
      release?.();
    }
    expect(received).toEqual(['data: 1\n\n', 'data: 2\n\n', 'data: 3\n\n']);
  });

  it('fetchJson caps the size, counted or declared', async () => {
    const egress = client();
    for (const path of ['/big', '/big-declared']) {
      const error = await rejection(egress.fetchJson(`http://127.0.0.1:${canary.port}${path}`, {}, { maxBytes: 1024 }));
      expect(error).toBeInstanceOf(EgressError);
      expect((error as EgressError).kind).toBe('too_large');
    }
    const small = await egress.fetchJson(`http://127.0.0.1:${canary.port}/big`, {}, { maxBytes: 4096 });
    expect(small.data).toEqual([]);
  });

  it('sends method, headers and body', async () => {
    const response = await client().fetchJson(`http://127.0.0.1:${canary.port}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(response.statusCode).toBe(200);
    expect(response.text).toContain('/echo');
  });
});

describe('failures', () => {
  beforeEach(() => {
    allowPrivate = true;
  });

  it('the headers timeout fires', async () => {
    const error = await rejection(client({ headersTimeoutMs: 150 }).request(`http://127.0.0.1:${canary.port}/hang`));
    expect(error).toBeInstanceOf(EgressError);
    expect((error as EgressError).kind).toBe('headers_timeout');
    expect((error as EgressError).statusCode).toBe(504);
  });

  it('the body timeout fires between chunks', async () => {
    const error = await rejection(client({ bodyTimeoutMs: 150 }).fetchJson(`http://127.0.0.1:${canary.port}/stall`));
    expect(error).toBeInstanceOf(EgressError);
    expect((error as EgressError).kind).toBe('body_timeout');
  });

  it('the connect timeout covers DNS and fires', async () => {
    const hangingDns = () => new Promise<never>(() => undefined);
    const error = await rejection(client({ connectTimeoutMs: 150, resolve: hangingDns }).request(`http://slow.test:${canary.port}/`));
    expect(error).toBeInstanceOf(EgressError);
    expect((error as EgressError).kind).toBe('connect_timeout');
  });

  it('network errors never carry the query string', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const error = await rejection(client().request(`http://127.0.0.1:${port}/v1beta/models?key=AIzaSECRETKEY`));
    expect(error).toBeInstanceOf(EgressError);
    expect((error as EgressError).kind).toBe('connection_refused');
    expect((error as Error).message).toContain('/v1beta/models');
    expect((error as Error).message).not.toContain('AIzaSECRETKEY');
  });

  it('an aborted signal ends the request', async () => {
    const controller = new AbortController();
    const hangs = () => canary.paths.filter((path) => path === '/hang').length;
    const before = hangs();
    const pending = client().request(`http://127.0.0.1:${canary.port}/hang`, { signal: controller.signal });
    // Aborted once the request is at the server, waiting for its answer.
    await waitFor(() => hangs() > before, 5_000, 'the request at the server');
    controller.abort();
    const error = await rejection(pending);
    expect(error).toBeInstanceOf(EgressError);
    expect((error as EgressError).kind).toBe('aborted');
  });

  it('close() refuses later requests', async () => {
    const egress = client();
    await egress.fetchJson(`http://127.0.0.1:${canary.port}/`);
    await egress.close();
    const error = await rejection(egress.request(`http://127.0.0.1:${canary.port}/`));
    expect(error).toBeInstanceOf(EgressError);
    expect((error as EgressError).kind).toBe('closed');
  });
});

describe('requestWhole: an answer read whole, without a stream', () => {
  beforeEach(() => {
    allowPrivate = true;
  });

  it('gives the status and headers, then the whole text, for a body in several chunks', async () => {
    const egress = client();
    const pending = egress.requestWhole(`http://127.0.0.1:${canary.port}/stream`, {}, 1024);
    // The server holds back its next chunk until asked: the headers come before the whole text.
    const response = await pending;
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream');
    let ended = false;
    response.text.then(
      () => (ended = true),
      () => (ended = true),
    );
    for (;;) {
      await waitFor(() => releaseChunk !== undefined || ended, 5_000, 'the next chunk or the end');
      if (ended) break;
      const release = releaseChunk!;
      releaseChunk = undefined;
      release();
    }
    expect(await response.text).toBe('data: 1\n\ndata: 2\n\ndata: 3\n\n');
  });

  it('sends method, headers and body, and returns an error status as is', async () => {
    const echo = await client().requestWhole(
      `http://127.0.0.1:${canary.port}/echo`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
      1024,
    );
    expect(JSON.parse(await echo.text)).toEqual({ ok: true, path: '/echo' });
    const redirect = await client().requestWhole(`http://127.0.0.1:${canary.port}/redirect`, {}, 1024);
    expect(redirect.statusCode).toBe(302);
    expect(await redirect.text).toBe('');
    expect(canary.paths).not.toContain('/internal-secret');
  });

  it('cuts a longer body at maxBytes, counted or declared', async () => {
    const egress = client();
    for (const path of ['/big', '/big-declared']) {
      const response = await egress.requestWhole(`http://127.0.0.1:${canary.port}${path}`, {}, 100);
      const text = await response.text;
      expect(Buffer.byteLength(text)).toBe(100);
      expect(text.startsWith(path === '/big' ? '[' : '{}')).toBe(true);
    }
    // The same client goes on answering after the cut connections.
    expect(await (await egress.requestWhole(`http://127.0.0.1:${canary.port}/after-cut`, {}, 1024)).text).toContain('/after-cut');
  });

  it('goes through the same address guard, opening no socket', async () => {
    allowPrivate = false;
    const before = canary.connections;
    const error = await rejection(client().requestWhole(`http://2130706433:${canary.port}/`, {}, 1024));
    expect(error).toBeInstanceOf(EgressBlockedError);
    expect((error as EgressBlockedError).reason).toBe('address');
    const blocked = await rejection(client().requestWhole(`http://127.0.0.1:${canary.port}/`, { privateNetwork: { allowed: false } }, 1024));
    expect(blocked).toBeInstanceOf(EgressBlockedError);
    expect(canary.connections).toBe(before);
  });

  it('abort() while the body comes rejects the text; a stalled body times out', async () => {
    const stalled = await client().requestWhole(`http://127.0.0.1:${canary.port}/stall`, {}, 1024);
    stalled.abort();
    const aborted = await rejection(stalled.text);
    expect(aborted).toBeInstanceOf(EgressError);
    expect((aborted as EgressError).kind).toBe('aborted');

    const timedOut = await client({ bodyTimeoutMs: 150 }).requestWhole(`http://127.0.0.1:${canary.port}/stall`, {}, 1024);
    const error = await rejection(timedOut.text);
    expect(error).toBeInstanceOf(EgressError);
    expect((error as EgressError).kind).toBe('body_timeout');
  });

  it('the headers timeout, an aborted signal and a refused connection reject the call', async () => {
    const late = await rejection(client({ headersTimeoutMs: 150 }).requestWhole(`http://127.0.0.1:${canary.port}/hang`, {}, 1024));
    expect((late as EgressError).kind).toBe('headers_timeout');

    const controller = new AbortController();
    const hangs = () => canary.paths.filter((path) => path === '/hang').length;
    const before = hangs();
    const pending = client().requestWhole(`http://127.0.0.1:${canary.port}/hang`, { signal: controller.signal }, 1024);
    await waitFor(() => hangs() > before, 5_000, 'the request at the server');
    controller.abort();
    const aborted = await rejection(pending);
    expect(aborted).toBeInstanceOf(EgressError);
    expect((aborted as EgressError).kind).toBe('aborted');

    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await rejection(client().requestWhole(`http://127.0.0.1:${port}/v1?key=SECRET`, {}, 1024));
    expect((refused as EgressError).kind).toBe('connection_refused');
    expect((refused as Error).message).not.toContain('SECRET');
  });
});

describe('resolveEgressHost: the same address rule for connections that are not HTTP (SMTP, issue 22.7)', () => {
  const resolve = async (hostname: string) => {
    const fake = fakeDns[hostname];
    if (fake) return fake.map((address) => ({ address, family: 4 }));
    const { promises } = await import('node:dns');
    return promises.lookup(hostname, { all: true });
  };
  const refusal = 'a root admin can allow them with the option AllowPrivateNetworkSmtp';

  it.each(['127.0.0.1', '0.0.0.0', '::1', '[::1]', '::ffff:127.0.0.1', '169.254.169.254', '10.0.0.1', 'localhost', 'rebind.test', 'mixed.test'])(
    '%s → blocked by address, naming what lifts it',
    async (host) => {
      const error = await rejection(resolveEgressHost(host, { allowPrivateNetwork: false, refusal, resolve }));
      expect(error).toBeInstanceOf(EgressBlockedError);
      expect((error as EgressBlockedError).reason).toBe('address');
      expect((error as Error).message).toMatch(/AllowPrivateNetworkSmtp/);
    },
  );

  it('answers the checked addresses: public ones always, private ones when allowed', async () => {
    await expect(resolveEgressHost('93.184.216.34', { allowPrivateNetwork: false, refusal, resolve })).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
    await expect(resolveEgressHost('rebind.test', { allowPrivateNetwork: true, refusal, resolve })).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
    await expect(resolveEgressHost('[::1]', { allowPrivateNetwork: true, refusal, resolve })).resolves.toEqual([{ address: '::1', family: 6 }]);
  });

  it('says when a name does not resolve', async () => {
    await expect(resolveEgressHost('name.invalid', { allowPrivateNetwork: false, refusal, resolve })).rejects.toMatchObject({ kind: 'dns' });
  });
});

describe("a per-request private-network rule (a channel's own flag, issue 22.10)", () => {
  const refusal = 'this channel may not reach private networks; an admin can allow it on the channel (allow_private_network)';

  it("overrides the client's default either way, with its own refusal", async () => {
    const egress = client();
    allowPrivate = false;
    const response = await egress.fetchJson(`http://rebind.test:${canary.port}/allowed-here`, { privateNetwork: { allowed: true } });
    expect(response.data).toEqual({ ok: true, path: '/allowed-here' });

    allowPrivate = true;
    const before = canary.connections;
    for (const url of [`http://127.0.0.1:${canary.port}/`, `http://rebind.test:${canary.port}/`]) {
      const error = await rejection(egress.request(url, { privateNetwork: { allowed: false, refusal } }));
      expect(error).toBeInstanceOf(EgressBlockedError);
      expect((error as Error).message).toContain(refusal);
      expect((error as Error).message).not.toMatch(/AllowPrivateNetworkUpstreams/);
    }
    expect(canary.connections).toBe(before);
  });

  it("judges a URL it parsed before under each call's own rule", async () => {
    const egress = client();
    const url = `http://127.0.0.1:${canary.port}/parsed-once`;
    for (const allowed of [true, false, true, false]) {
      const call = egress.requestWhole(url, { privateNetwork: { allowed, refusal } }, 1024);
      if (allowed) expect((await call).statusCode).toBe(200);
      else expect(await rejection(call)).toBeInstanceOf(EgressBlockedError);
    }
    // Not URLs at all, however often: refused each time, nothing kept.
    for (let index = 0; index < 2; index++) {
      expect(((await rejection(egress.request('http//nowhere', { privateNetwork: { allowed: true } }))) as EgressBlockedError).reason).toBe('invalid_url');
    }
  });

  it('never lends a socket a permissive request opened to a strict one', async () => {
    const egress = client();
    await egress.fetchJson(`http://rebind.test:${canary.port}/warm-open`, { privateNetwork: { allowed: true } }); // a pooled keep-alive socket
    const before = canary.connections;
    const paths = canary.paths.length;
    await expect(egress.request(`http://rebind.test:${canary.port}/strict`, { privateNetwork: { allowed: false, refusal } })).rejects.toBeInstanceOf(
      EgressBlockedError,
    );
    expect(canary.connections).toBe(before);
    expect(canary.paths.length).toBe(paths);
  });
});
