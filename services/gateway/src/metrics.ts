import type { App } from '@aigw/platform';

/** A small Prometheus endpoint: answers by status class, and the process's memory. */
export function registerMetrics(app: App): void {
  const answers = new Map<string, number>();
  app.addHook('onResponse', async (_request, reply) => {
    const label = `${Math.floor(reply.statusCode / 100)}xx`;
    answers.set(label, (answers.get(label) ?? 0) + 1);
  });
  app.get('/metrics', async (_request, reply) => {
    const memory = process.memoryUsage();
    const lines = [
      '# HELP aigw_http_responses_total Responses sent by the gateway, by status class.',
      '# TYPE aigw_http_responses_total counter',
      ...[...answers].map(([label, count]) => `aigw_http_responses_total{status="${label}"} ${count}`),
      '# HELP process_resident_memory_bytes Resident memory size in bytes.',
      '# TYPE process_resident_memory_bytes gauge',
      `process_resident_memory_bytes ${memory.rss}`,
      '# HELP nodejs_heap_used_bytes V8 heap in use.',
      '# TYPE nodejs_heap_used_bytes gauge',
      `nodejs_heap_used_bytes ${memory.heapUsed}`,
    ];
    return reply.type('text/plain; version=0.0.4').send(`${lines.join('\n')}\n`);
  });
}
