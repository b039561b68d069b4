import { promises as dns } from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { msg } from '@aigw/contracts';
import { classifyAddress } from './address-policy.js';
import { EgressBlockedError, EgressError, toEgressError } from './egress-errors.js';

/** The root option that lifts the address rule (declared in contracts; named here to avoid the import). */
export const ALLOW_PRIVATE_NETWORK_OPTION = 'AllowPrivateNetworkUpstreams';

/** Ports below 1024 other than 80/443 are where internal services (ssh 22, smtp 25, redis-ish admin ports) live. */
const isAllowedPort = (port: number) => port === 80 || port === 443 || port >= 1024;

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface EgressClientOptions {
  /** Read on every request and every new connection, so flipping the root option takes effect at once. */
  allowPrivateNetwork: () => boolean;
  /** DNS lookup + TCP + TLS handshake, per connection. */
  connectTimeoutMs: number;
  /** From the request being sent to the response headers arriving. */
  headersTimeoutMs: number;
  /** Longest silence between two body chunks (a stream idle guard, not a total time). */
  bodyTimeoutMs: number;
  /** How long an idle pooled connection is kept; also caps what a server's Keep-Alive hint may ask. */
  keepAliveTimeoutMs: number;
  /** Connections per origin; unlimited when absent. */
  connections?: number;
  /** Option name quoted in the blocked-address message. */
  privateNetworkOption?: string;
  /** Resolves a hostname to all its addresses; defaults to the OS resolver (dns.lookup). Tests inject names here. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

export interface EgressRequestInit {
  method?: Dispatcher.HttpMethod;
  headers?: Record<string, string>;
  body?: Dispatcher.DispatchOptions['body'];
  signal?: AbortSignal;
  /**
   * This request's own private-network rule (a channel's flag, rule R2) instead of the client's
   * `allowPrivateNetwork()`; `refusal` ends the message of a refused address (what lifts it).
   */
  privateNetwork?: { allowed: boolean; refusal?: string };
}

/** The address rule one request runs under. */
interface RequestPolicy {
  allowed: boolean;
  refusal: string;
}

export interface EgressResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** undici's streaming body: iterate it chunk by chunk (SSE), or consume it; always consume or destroy it. */
  body: Dispatcher.ResponseData['body'];
}

/**
 * A whole answer, read as it arrives without a stream (`requestWhole`): its status and headers
 * once they came, its text once it ended.
 */
export interface EgressWholeResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /**
   * The body as text when it ended: at most `maxBytes` of it (a longer body is cut there and the
   * rest not read). Rejects with an EgressError when the connection broke, the body stalled
   * beyond bodyTimeoutMs, or `abort()` was called before the end.
   */
  text: Promise<string>;
  /** Stops reading (a deadline passed): `text` rejects, the connection is closed. */
  abort(): void;
}

export interface EgressJsonResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The raw answer, for error excerpts. */
  text: string;
  /** The parsed JSON, or undefined when the answer is empty or not JSON (error pages often are not). */
  data: unknown;
}

export interface EgressClient {
  request(url: string | URL, init?: EgressRequestInit): Promise<EgressResponse>;
  /**
   * The same call for an answer wanted whole (a non-streaming relay): resolves at the headers,
   * its `text` at the end. No stream is made (undici's body stream and its async iteration were
   * a fifth of the relay's cost of an upstream call; docs/architecture.md section 5).
   */
  requestWhole(url: string | URL, init: EgressRequestInit, maxBytes: number): Promise<EgressWholeResponse>;
  /** For small answers (model lists, balances, webhooks): the body is read up to maxBytes (default 1 MiB). */
  fetchJson(url: string | URL, init?: EgressRequestInit, limits?: { maxBytes?: number }): Promise<EgressJsonResponse>;
  /**
   * Judges a destination without connecting: the URL rules, then the literal address or every
   * address DNS gives for the name. For URLs being saved (webhooks); `request` judges again on
   * every connection, since DNS may answer differently later. Rejects with EgressBlockedError,
   * or EgressError `dns` when the name does not resolve.
   */
  check(url: string | URL): Promise<URL>;
  /** Destroys the pool: in-flight requests fail, later ones are refused. */
  close(): Promise<void>;
}

/** URL texts kept parsed per client (checkUrl). */
const PARSED_URLS_MAX = 256;

/** The default end of a blocked-address message: what lifts the rule. */
const optionRefusal = (optionName: string) => msg('egress.private_network_off', { option: optionName });

/**
 * The refusal of an address in the special-purpose registry, or undefined when it is public. The
 * message is the catalogue's (`msg(id)`), `refusal` (text or a `msg(id)` of its own) after it.
 */
function blockedAddress(host: string, address: string, refusal: string): EgressBlockedError | undefined {
  const range = classifyAddress(address);
  if (!range) return undefined;
  const where = { address, label: range.label, cidr: range.cidr };
  const blocked = host === address ? msg('egress.address', where) : msg('egress.resolved_address', { host, ...where });
  return new EgressBlockedError(`${blocked}${refusal}`, 'address', address, range);
}

export interface HostPolicy {
  /** Whether loopback, private and the other special-purpose addresses may be reached. */
  allowPrivateNetwork: boolean;
  /** The end of the refusal: what lifts the rule (e.g. "a root admin can allow them with the option X"), best a `msg(id)`. */
  refusal: string;
  /** Resolves a name to all its addresses; defaults to the OS resolver. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

/**
 * The address rule for connections that are not HTTP (SMTP): resolves a host (a name, or an IP
 * literal, IPv6 with or without brackets) and judges every address it has, one bad record
 * blocking the name. The caller connects to one of the answered addresses, never to the name
 * again, so DNS cannot answer differently in between (rebinding). Rejects with
 * EgressBlockedError (`address`), or EgressError `dns` when the name does not resolve.
 */
export async function resolveEgressHost(host: string, policy: HostPolicy): Promise<ResolvedAddress[]> {
  const bare = host.trim().replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  let answers: ResolvedAddress[];
  if (family) answers = [{ address: bare, family }];
  else {
    try {
      answers = await (policy.resolve ?? ((name: string) => dns.lookup(name, { all: true })))(bare);
    } catch (error) {
      throw new EgressError('dns', undefined, error);
    }
    if (answers.length === 0) throw new EgressError('dns', undefined);
  }
  if (!policy.allowPrivateNetwork) {
    for (const { address } of answers) {
      const blocked = blockedAddress(bare, address, policy.refusal);
      if (blocked) throw blocked;
    }
  }
  return answers;
}

/**
 * The process's one way out to the network (rule R1). Every URL is checked for scheme, userinfo
 * and port; every address (literal, or each one DNS returned) is checked against the
 * special-purpose registry; the socket then connects to exactly the address that was checked,
 * so a second DNS answer (rebinding) never gets a say. Redirects are returned, never followed.
 */
export function createEgressClient(options: EgressClientOptions): EgressClient {
  const optionName = options.privateNetworkOption ?? ALLOW_PRIVATE_NETWORK_OPTION;
  const resolve = options.resolve ?? ((hostname: string) => dns.lookup(hostname, { all: true }));

  /** The client's own rule, for requests that bring none. */
  const defaultPolicy = (): RequestPolicy => ({ allowed: options.allowPrivateNetwork(), refusal: optionRefusal(optionName) });

  /**
   * One pool per rule: sockets a permissive request opened are never lent to a strict one, and
   * a tightened default simply selects the strict pool (whose sockets were all checked so).
   */
  const agents = new Map<string, Agent>();
  let closed = false;

  function agentFor(policy: RequestPolicy): Agent {
    const name = policy.allowed ? 'open' : `strict:${policy.refusal}`;
    let agent = agents.get(name);
    if (!agent) {
      agent = createAgent(policy);
      agents.set(name, agent);
    }
    return agent;
  }

  function createAgent(policy: RequestPolicy): Agent {
    const judge = (host: string, address: string) => (policy.allowed ? undefined : blockedAddress(host, address, policy.refusal));
    // net.connect calls this instead of dns.lookup and connects to what it hands back: the check
    // and the connection use the same answer. Node asks for `all` when it races IPv4/IPv6.
    const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
      resolve(hostname)
        .then((answers) => {
          // One bad record poisons the whole answer: mixing a public and a private record is the
          // classic way to get a checker and a connector to disagree.
          for (const { address } of answers) {
            const blocked = judge(hostname, address);
            if (blocked) throw blocked;
          }
          const usable = answers.filter((answer) => !lookupOptions.family || answer.family === lookupOptions.family);
          if (usable.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
          if (lookupOptions.all) callback(null, usable);
          else callback(null, usable[0]!.address, usable[0]!.family);
        })
        .catch((error: NodeJS.ErrnoException) => callback(error, ''));
    };
    const baseConnect = buildConnector({ timeout: options.connectTimeoutMs, lookup: guardedLookup });
    // net.connect skips the lookup for IP literals, so those are checked here (request() has
    // already checked them too; this keeps the agent safe on its own).
    const connect: buildConnector.connector = (target, callback) => {
      const blocked = isIP(target.hostname) ? judge(target.hostname, target.hostname) : undefined;
      if (blocked) callback(blocked, null);
      else baseConnect(target, callback);
    };
    return new Agent({
      connect,
      pipelining: 1,
      connections: options.connections ?? null,
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      keepAliveMaxTimeout: options.keepAliveTimeoutMs,
    });
  }

  /**
   * URLs parsed lately, by their text: a relay calls the same few upstream URLs over and over, and
   * the parse was 1% of the all-in-one relay's time. Never changed once made; the rules below still
   * judge each call (under its own policy).
   */
  const parsedUrls = new Map<string, URL>();

  /** Everything that can be judged from the URL alone, before any socket exists. */
  function checkUrl(raw: string | URL, policy: RequestPolicy): URL {
    let url = typeof raw === 'string' ? parsedUrls.get(raw) : undefined;
    if (!url) {
      try {
        // The WHATWG parser is the normaliser: 2130706433, 0x7f.1 and [::ffff:127.0.0.1] come out
        // as the canonical addresses the checks below understand.
        url = new URL(raw);
      } catch {
        throw new EgressBlockedError(msg('egress.invalid_url'), 'invalid_url');
      }
      if (typeof raw === 'string') {
        // Bounded without bookkeeping: many distinct URLs (a query per call) just start it over.
        if (parsedUrls.size >= PARSED_URLS_MAX) parsedUrls.clear();
        parsedUrls.set(raw, url);
      }
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new EgressBlockedError(msg('egress.scheme', { scheme: url.protocol }), 'scheme');
    }
    if (url.username || url.password) {
      throw new EgressBlockedError(msg('egress.userinfo'), 'userinfo');
    }
    if (url.port && !isAllowedPort(Number(url.port))) {
      throw new EgressBlockedError(msg('egress.port', { port: url.port }), 'port');
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const blocked = isIP(host) && !policy.allowed ? blockedAddress(host, host, policy.refusal) : undefined;
    if (blocked) throw blocked;
    return url;
  }

  /** The call as undici takes it, and the pool it goes through; throws what checkUrl throws. */
  function prepared(raw: string | URL, init: EgressRequestInit) {
    const policy = init.privateNetwork
      ? { allowed: init.privateNetwork.allowed, refusal: init.privateNetwork.refusal ?? optionRefusal(optionName) }
      : defaultPolicy();
    const url = checkUrl(raw, policy);
    if (closed) throw new EgressError('closed', url);
    const options = {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: init.method ?? 'GET',
      headers: init.headers,
      body: init.body,
      // undici 7 only follows redirects through its redirect interceptor, which we never add;
      // 0 also switches it off per request should someone compose one onto this agent.
      maxRedirections: 0,
    };
    return { url, options, agent: agentFor(policy) };
  }

  async function request(raw: string | URL, init: EgressRequestInit = {}): Promise<EgressResponse> {
    const { url, options, agent } = prepared(raw, init);
    try {
      const { statusCode, headers, body } = await agent.request(Object.assign(options, { signal: init.signal }));
      return { statusCode, headers, body };
    } catch (error) {
      throw toEgressError(error, url, init.signal);
    }
  }

  async function requestWhole(raw: string | URL, init: EgressRequestInit, maxBytes: number): Promise<EgressWholeResponse> {
    const { url, options, agent } = prepared(raw, init);
    const { signal } = init;
    if (signal?.aborted) throw new EgressError('aborted', url, signal.reason);
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let controller: Dispatcher.DispatchController | undefined;
      /** The text's settlers, from the headers on. */
      let body: { resolve: (text: string) => void; reject: (error: unknown) => void } | undefined;
      const onAbort = () => controller?.abort(new EgressError('aborted', url, signal?.reason));
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      const text = () => (chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(started) {
          controller = started;
        },
        onResponseStart(started, statusCode, headers) {
          // 1xx informational heads come before the answer's own.
          if (statusCode < 200) return;
          const whole = new Promise<string>((resolveText, rejectText) => (body = { resolve: resolveText, reject: rejectText }));
          // Awaited by the caller, or not at all when it gave up on the answer: never an unhandled rejection.
          whole.catch(() => undefined);
          resolve({ statusCode, headers, text: whole, abort: () => started.abort(new EgressError('aborted', url)) });
        },
        onResponseData(started, chunk) {
          if (size + chunk.length <= maxBytes) {
            chunks.push(chunk);
            size += chunk.length;
            return;
          }
          // Cut at the bound, as readBounded cuts a stream: the text so far, and the rest unread.
          chunks.push(chunk.subarray(0, maxBytes - size));
          size = maxBytes;
          done();
          body!.resolve(text());
          started.abort(new EgressError('too_large', url));
        },
        onResponseEnd() {
          done();
          body!.resolve(text());
        },
        onResponseError(_started, error) {
          done();
          const failure = toEgressError(error, url, signal);
          if (body) body.reject(failure);
          else reject(failure);
        },
      };
      try {
        agent.dispatch(options, handler);
      } catch (error) {
        done();
        reject(toEgressError(error, url, signal));
      }
    });
  }

  async function fetchJson(raw: string | URL, init: EgressRequestInit = {}, limits: { maxBytes?: number } = {}): Promise<EgressJsonResponse> {
    const maxBytes = limits.maxBytes ?? 1024 * 1024;
    const response = await request(raw, init);
    const url = new URL(raw);
    const chunks: Buffer[] = [];
    try {
      // Refuse early on an honest Content-Length; count anyway, since a server may omit or lie.
      if (Number(response.headers['content-length']) > maxBytes) throw new EgressError('too_large', url);
      let size = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) throw new EgressError('too_large', url);
        chunks.push(chunk);
      }
    } catch (error) {
      // Stop reading (and free the socket); undici reports that as an abort error nobody needs.
      response.body.on('error', () => undefined).destroy();
      throw toEgressError(error, url, init.signal);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = undefined;
    }
    return { statusCode: response.statusCode, headers: response.headers, text, data };
  }

  async function check(raw: string | URL): Promise<URL> {
    const policy = defaultPolicy();
    const url = checkUrl(raw, policy);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) return url;
    let answers: ResolvedAddress[];
    try {
      answers = await resolve(host);
    } catch (error) {
      throw new EgressError('dns', url, error);
    }
    if (answers.length === 0) throw new EgressError('dns', url);
    for (const { address } of answers) {
      const blocked = policy.allowed ? undefined : blockedAddress(host, address, policy.refusal);
      if (blocked) throw blocked;
    }
    return url;
  }

  return {
    request,
    requestWhole,
    fetchJson,
    check,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...agents.values()].map((agent) => agent.destroy()));
    },
  };
}
