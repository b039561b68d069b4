/**
 * Which service owns which path (docs/architecture.md section 3.7). The most specific prefix wins.
 * Every service serves its own dead letters under `/api/dead_letter/<service>` (docs/architecture.md section 3.10).
 * In the distributed topology the gateway proxies each prefix to its service; all-in-one, the
 * services are mounted in this process and the table only decides what is an API path.
 */
export const services = ['identity', 'billing', 'channels', 'relay', 'notifier'] as const;
export type ServiceName = (typeof services)[number];

export const routeTable: Record<ServiceName, readonly string[]> = {
  identity: [
    '/api/status',
    '/api/notice',
    '/api/about',
    '/api/home_page_content',
    '/api/user',
    '/api/group',
    '/api/verification',
    '/api/reset_password',
    '/api/oauth',
    '/api/option',
    '/api/verify',
    '/api/audit',
    '/api/dead_letter/identity',
  ],
  billing: [
    '/api/token',
    '/api/redemption',
    '/api/log',
    '/api/data',
    '/api/pricing',
    '/api/user/topup',
    '/api/user/amount',
    '/api/user/pay',
    '/api/user/aff_transfer',
    '/api/user/epay',
    '/api/dead_letter/billing',
  ],
  channels: ['/api/channel', '/api/models', '/api/user/models', '/api/dead_letter/channels'],
  relay: [
    '/v1',
    '/v1beta',
    '/pg',
    '/mj',
    '/mj-fast',
    '/mj-relax',
    '/mj-turbo',
    '/suno',
    '/dashboard',
    '/api/mj',
    '/api/task',
    '/api/limits',
    '/api/dead_letter/relay',
  ],
  notifier: ['/api/webhook', '/api/job', '/api/dead_letter/notifier'],
};

/** Relay paths: authenticated by sk- tokens in the relay, CORS open to any origin. */
export const relayPrefixes = routeTable.relay.filter((prefix) => !prefix.startsWith('/api/') && prefix !== '/pg');

const entries = Object.entries(routeTable)
  .flatMap(([service, prefixes]) => prefixes.map((prefix) => ({ service: service as ServiceName, prefix })))
  .sort((a, b) => b.prefix.length - a.prefix.length);

function matches(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** The service that owns `path` (query string ignored), or undefined. */
export function owningService(url: string): ServiceName | undefined {
  const path = url.split('?', 1)[0]!;
  return entries.find((entry) => matches(path, entry.prefix))?.service;
}

export function isRelayPath(url: string): boolean {
  const path = url.split('?', 1)[0]!;
  return relayPrefixes.some((prefix) => matches(path, prefix));
}

/** Paths whose unknown routes answer JSON 404s instead of the console's index.html. */
export function isApiPath(url: string): boolean {
  const path = url.split('?', 1)[0]!;
  return ['/api', '/v1', '/v1beta', '/assets', '/internal', '/mj', '/mj-fast', '/mj-relax', '/mj-turbo', '/suno', '/pg', '/dashboard'].some((prefix) =>
    matches(path, prefix),
  );
}
