import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { channel as supportChannel } from './providers/support';
import { createEgressClient, createSilentLogger, type EgressClient } from '@aigw/platform';
import { AccessTokenError, createAccessTokens } from '../src/access-tokens';
import type { TokenExchange } from '../src/providers/types';

const channel = (id: number) => supportChannel({ id, type: 41, name: 'vertex', allow_private_network: true });

/**
 * The access-token cache the signed providers use: one exchange per channel, key and scope until
 * shortly before expiry, shared by the requests that wait for it, through the egress guard.
 */
describe('access tokens', () => {
  let server: http.Server;
  let url: string;
  let egress: EgressClient;
  let exchanges: Array<{ body: string; at: number }>;
  /** What the token endpoint answers next: status and seconds of validity. */
  let next: { status: number; expiresIn: number; delayMs: number };
  let clock: number;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        exchanges.push({ body, at: clock });
        const { status, expiresIn, delayMs } = next;
        setTimeout(() => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(status === 200 ? { access_token: `token-${exchanges.length}-${body}`, expires_in: expiresIn } : { error: 'invalid_grant' }));
        }, delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
    egress = createEgressClient({
      allowPrivateNetwork: () => false,
      connectTimeoutMs: 5_000,
      headersTimeoutMs: 5_000,
      bodyTimeoutMs: 5_000,
      keepAliveTimeoutMs: 1_000,
    });
  });

  afterAll(async () => {
    await egress.close();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    exchanges = [];
    next = { status: 200, expiresIn: 3600, delayMs: 0 };
    clock = 1_700_000_000_000;
  });

  const exchangeFor = (key: string, scope = ''): TokenExchange => ({
    scope,
    request: () => ({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: key }),
    parse(json, now) {
      const answer = json as { access_token?: string; expires_in?: number };
      if (!answer.access_token) throw new Error('no access_token');
      return { token: answer.access_token, expiresAt: now + (answer.expires_in ?? 0) * 1000 };
    },
  });

  it('exchanges once for concurrent requests and reuses the token until shortly before it expires', async () => {
    const tokens = createAccessTokens(egress, createSilentLogger(), () => clock);
    next.delayMs = 50;
    const tools = tokens.for(channel(1), 'key-a');
    const first = await Promise.all(Array.from({ length: 10 }, () => tools.accessToken(exchangeFor('key-a'))));
    expect(new Set(first)).toEqual(new Set(['token-1-key-a']));
    expect(exchanges).toHaveLength(1);
    // 54 minutes later: still valid for six, reused.
    clock += 54 * 60_000;
    expect(await tools.accessToken(exchangeFor('key-a'))).toBe('token-1-key-a');
    expect(exchanges).toHaveLength(1);
    // 56 minutes: within the five-minute margin, renewed.
    clock += 2 * 60_000;
    expect(await tools.accessToken(exchangeFor('key-a'))).toBe('token-2-key-a');
    expect(exchanges).toHaveLength(2);
  });

  it('keeps tokens apart per channel, key and scope', async () => {
    const tokens = createAccessTokens(egress, createSilentLogger(), () => clock);
    await tokens.for(channel(1), 'key-a').accessToken(exchangeFor('key-a'));
    await tokens.for(channel(2), 'key-a').accessToken(exchangeFor('key-a'));
    // A rotated key never uses the old key's token.
    await tokens.for(channel(1), 'key-b').accessToken(exchangeFor('key-b'));
    await tokens.for(channel(1), 'key-a').accessToken(exchangeFor('key-a', 'us-east5'));
    expect(exchanges).toHaveLength(4);
    await tokens.for(channel(1), 'key-a').accessToken(exchangeFor('key-a'));
    expect(exchanges).toHaveLength(4);
  });

  it("forgets a channel's tokens for a key when the upstream refused one early", async () => {
    const tokens = createAccessTokens(egress, createSilentLogger(), () => clock);
    const tools = tokens.for(channel(5), 'key-f');
    expect(await tools.accessToken(exchangeFor('key-f'))).toBe('token-1-key-f');
    tokens.forget(channel(5), 'another-key');
    expect(await tools.accessToken(exchangeFor('key-f'))).toBe('token-1-key-f');
    tokens.forget(channel(5), 'key-f');
    expect(await tools.accessToken(exchangeFor('key-f'))).toBe('token-2-key-f');
  });

  it('fails with AccessTokenError when the exchange is refused, and tries again on the next request', async () => {
    const tokens = createAccessTokens(egress, createSilentLogger(), () => clock);
    next.status = 400;
    const tools = tokens.for(channel(3), 'bad');
    await expect(tools.accessToken(exchangeFor('bad'))).rejects.toMatchObject({ name: 'AccessTokenError', status: 400 });
    next.status = 200;
    expect(await tools.accessToken(exchangeFor('bad'))).toBe('token-2-bad');
  });

  it('goes through the egress guard under the channel flag', async () => {
    const tokens = createAccessTokens(egress, createSilentLogger(), () => clock);
    const closed = { ...channel(4), allow_private_network: false };
    await expect(tokens.for(closed, 'k').accessToken(exchangeFor('k'))).rejects.toBeInstanceOf(AccessTokenError);
    expect(exchanges).toHaveLength(0);
  });
});
