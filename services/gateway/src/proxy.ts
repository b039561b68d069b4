import httpProxy from '@fastify/http-proxy';
import {
  BodyTooLargeError,
  bodyLimits,
  errorShapeFor,
  internalHeaders,
  readCapped,
  sendError,
  serverErrorMessage,
  signIdentity,
  type App,
  type ErrorReply,
  type OutageLog,
} from '@aigw/platform';
import type { FastifyBaseLogger } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { owningService, routeTable, services, type ServiceName } from './route-table.js';

/** The payment gateways' notifies: unauthenticated, but forms larger than a login's. */
const paymentCallbackPrefix = '/api/user/epay/';

/**
 * The body cap the gateway enforces on a proxied request before forwarding a byte of it (test
 * D1): anonymous callers small, signed-in console users larger, payment notifies their own. The
 * service caps each route again by its declared access. Relay bodies are streamed: the relay
 * checks the key before reading and caps by operation.
 */
export function proxiedBodyLimit(url: string, signedIn: boolean): number | undefined {
  const service = owningService(url);
  if (service === undefined || service === 'relay') return undefined;
  if (url.startsWith(paymentCallbackPrefix)) return bodyLimits.paymentCallback;
  return signedIn ? bodyLimits.console : bodyLimits.anonymous;
}

/**
 * Distributed topology: each route-table prefix is proxied to its service, with the caller's
 * identity signed (HMAC with INTERNAL_SECRET, bound to method and URL, timestamped). A service
 * that cannot be reached is the gateway's 502 (504 when it does not answer in time), in the
 * caller's shape, warned about once a second.
 */
export async function registerProxies(app: App, upstreams: Record<ServiceName, string>, internalSecret: string): Promise<void> {
  await app.register(async (scope) => {
    scope.setChildLoggerFactory((logger, bindings, options) => withoutProxyErrorLines(logger.child(bindings, options)));
    // Refused before forwarding: by Content-Length at once, a chunked body as it passes the cap
    // (read into memory up to the cap, then forwarded whole). The rest is never read.
    scope.addHook('preParsing', async (request, reply, payload) => {
      const limit = proxiedBodyLimit(request.url, request.auth !== null);
      if (limit === undefined) return payload;
      try {
        if (Number(request.headers['content-length'] ?? 0) > limit) throw new BodyTooLargeError();
        return await readCapped(payload, limit);
      } catch (error) {
        if (error instanceof BodyTooLargeError) reply.header('connection', 'close');
        throw error;
      }
    });
    for (const service of services) {
      for (const prefix of routeTable[service]) {
        await scope.register(httpProxy, {
          upstream: upstreams[service],
          prefix,
          rewritePrefix: prefix,
          // A connection per request in flight, however many: a stream holds its connection for
          // minutes, and reply-from's default pool of 128 queued every stream past the 128th.
          undici: { connections: null },
          config: { access: 'public' },
          replyOptions: {
            rewriteRequestHeaders: (request, headers: IncomingHttpHeaders) => {
              const forwarded: IncomingHttpHeaders = { ...headers };
              delete forwarded[internalHeaders.identity];
              delete forwarded[internalHeaders.signature];
              return {
                ...forwarded,
                'x-request-id': request.id,
                'x-forwarded-for': request.ip,
                ...signIdentity(internalSecret, request.method, request.url, request.auth, request.ip),
              };
            },
            onError: (reply, { error }) => answerUnreachable(reply, service, error),
          },
        });
      }
    }
  });
}

/** What answering a failed proxy call needs of reply-from's reply. */
type ProxiedReply = ErrorReply & { log: FastifyBaseLogger; request: { url: string }; server: { outageLog: OutageLog } };

function answerUnreachable(reply: ProxiedReply, service: ServiceName, error: Error & { statusCode?: number; cause?: unknown }): void {
  const timedOut = error.statusCode === 504;
  // reply-from wraps the connection's error (ECONNREFUSED, ECONNRESET...) as the cause.
  const cause = (typeof (error.cause as Error | undefined)?.message === 'string' ? error.cause : error) as { message: string; code?: unknown };
  reply.server.outageLog.report(reply.log, `service ${service}`, { reason: cause.message, code: cause.code }, `${service} is unreachable`);
  const statusCode = timedOut ? 504 : 502;
  sendError(reply, errorShapeFor(reply.request.url), {
    statusCode,
    message: serverErrorMessage(statusCode),
    code: timedOut ? 'service_timeout' : 'service_unreachable',
  });
}

/** The message @fastify/reply-from logs, with the error's stack, for every request it cannot forward. */
const proxyErrorLine = 'response errored';

/**
 * Request loggers of the proxied routes without reply-from's line per failed request: during an
 * outage that is a stack per request; `answerUnreachable` reports through the outage log instead.
 */
function withoutProxyErrorLines(child: FastifyBaseLogger): FastifyBaseLogger {
  const warn: (...args: unknown[]) => void = child.warn.bind(child);
  child.warn = (...args: unknown[]) => {
    if (args[1] !== proxyErrorLine) warn(...args);
  };
  return child;
}
