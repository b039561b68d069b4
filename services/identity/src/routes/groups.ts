import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { IdentityContext } from '../context.js';

/** Group names (keys of GroupRatio) for admins, and the groups users may pick with their ratio. */
export const groupRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  const { options } = context;

  app.get('/api/group/', { config: { access: 'admin' } }, async () => ({
    success: true,
    message: '',
    data: Object.keys(options.get('GroupRatio')),
  }));

  app.get('/api/user/groups', { config: { access: 'public' } }, async () => {
    const ratios = options.get('GroupRatio');
    const data = Object.fromEntries(
      Object.entries(options.get('UserUsableGroups'))
        .filter(([group]) => group in ratios)
        .map(([group, desc]) => [group, { ratio: ratios[group], desc }]),
    );
    return { success: true, message: '', data };
  });
};
