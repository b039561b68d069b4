import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The process's metrics registry (docs/architecture.md section 11). One per process, whatever
 * services it runs: the all-in-one gateway and a standalone service alike serve it on
 * METRICS_PORT (server.ts). It is module state so the ports (bus, jobs) and the services register
 * their families where they observe, without being handed a registry.
 */
export const metricsRegistry = new Registry();

let processMetricsCollected = false;

/**
 * prom-client's process metrics (CPU, resident memory, heap, GC, handles, event-loop lag), once
 * per process. Called by the listener that serves them: a process without one keeps no
 * event-loop monitor running.
 */
export function collectProcessMetrics(): void {
  if (processMetricsCollected) return;
  processMetricsCollected = true;
  collectDefaultMetrics({ register: metricsRegistry });
}
