import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import { collectProcessMetrics, metricsRegistry } from './registry.js';

export interface MetricsServer {
  /** The port it listens on (the one chosen when METRICS_PORT is 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The process's Prometheus endpoint: `GET /metrics` in the text format on a listener of its own
 * (METRICS_PORT on HOST), never on the public port, so the ingress cannot expose it; 404 for
 * anything else. Starts the process metrics too.
 */
export async function startMetricsServer(options: { host: string; port: number; logger: Logger }): Promise<MetricsServer> {
  const { logger } = options;
  collectProcessMetrics();
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?', 1)[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    metricsRegistry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(text),
      (error: unknown) => {
        logger.error({ err: error }, 'metrics not collected');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics not collected\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  logger.info({ port }, 'metrics listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
