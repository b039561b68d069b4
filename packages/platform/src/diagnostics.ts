import type { FastifyInstance } from 'fastify';
import { isSecretOption, optionKeys } from '@aigw/contracts';
import type { OptionsMirror } from './options-mirror.js';

/**
 * Routes every service plugin registers under /internal/<service>/: a health check, and (root
 * only) the service's view of the non-secret options, which shows that option changes reached
 * it over the bus. The gateway does not route /internal/ in the distributed topology.
 */
export function registerDiagnostics(app: FastifyInstance, service: string, options?: OptionsMirror): void {
  app.get(`/internal/${service}/health`, { config: { access: 'public' } }, async () => ({
    success: true,
    message: '',
    data: { service, status: 'ok' },
  }));
  if (!options) return;
  app.get(`/internal/${service}/options`, { config: { access: 'root' } }, async () => {
    const values = options.all();
    const data = Object.fromEntries(optionKeys.filter((key) => !isSecretOption(key)).map((key) => [key, values[key]]));
    return { success: true, message: '', data };
  });
}
