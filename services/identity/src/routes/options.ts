import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { modelRatioOptionKeys, updateOptionBodySchema } from '@aigw/contracts';
import type { IdentityContext } from '../context.js';

/** Settings: root only. Secrets are write-only (never in GET, never on events). */
export const optionRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  const { options } = context;

  app.get('/api/option/', { config: { access: 'root' } }, async () => ({ success: true, message: '', data: options.publicRows() }));

  app.put('/api/option/', { schema: { body: updateOptionBodySchema }, config: { access: 'root' } }, async (request) => {
    await options.update(request.body.key, request.body.value);
    return { success: true, message: '' };
  });

  app.post('/api/option/rest_model_ratio', { config: { access: 'root' } }, async () => {
    await options.reset(modelRatioOptionKeys);
    return { success: true, message: '' };
  });
};
