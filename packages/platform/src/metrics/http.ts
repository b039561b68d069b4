import type { App } from '../app.js';
import { CounterFamily, HistogramFamily, OTHER, statusClass } from './families.js';

/** The route label of a request no route matched (a 404, whatever its path). */
export const UNMATCHED = 'unmatched';

const requests = new CounterFamily({
  name: 'aigw_http_requests_total',
  help: 'HTTP answers, by route pattern (never the raw path), method and status class.',
  labelNames: ['route', 'method', 'status'],
});

const durations = new HistogramFamily({
  name: 'aigw_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer finished (a stream: its end), by route pattern, method and status class.',
  labelNames: ['route', 'method', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
});

/** Methods a route may have; any other a client sends is `other`. */
const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * RED metrics of every answer of `app`: a counter and a duration histogram per route pattern,
 * method and status class. The route is the pattern a request matched (`/api/channel/:id`), so
 * paths clients invent add no series. Registered on the process's root app (the all-in-one
 * gateway, each standalone service) before its plugins, so every route has them.
 */
export function registerHttpMetrics(app: App): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    const method = methods.has(request.method) ? request.method : OTHER;
    const status = statusClass(reply.statusCode);
    requests.child(route, method, status).inc();
    durations.child(route, method, status).observe(reply.elapsedTime / 1000);
    done();
  });
}
