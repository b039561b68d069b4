import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isOptionKey, modelRatioOptionKeys, updateOptionBodySchema, type OptionKey } from '@aigw/contracts';
import { recordAudit, type AuditEntry } from '@aigw/platform';
import type { IdentityContext } from '../context.js';

/**
 * Settings: root only. Secrets are write-only (never in GET, never on events). Every change
 * leaves an audit record, a secret's value masked in it.
 */
export const optionRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  const { options, bus } = context;

  /** The record of a change of `key` from `before` to what the store holds now. */
  const optionAudit = (key: OptionKey, before: unknown): AuditEntry => ({
    action: 'option.updated',
    target: { type: 'option', id: key, label: key },
    before: { [key]: before },
    after: { [key]: options.get(key) },
  });

  app.get('/api/option/', { config: { access: 'root' } }, async () => ({ success: true, message: '', data: options.publicRows() }));

  app.put('/api/option/', { schema: { body: updateOptionBodySchema }, config: { access: 'root' } }, async (request) => {
    const { key, value } = request.body;
    const before = isOptionKey(key) ? options.get(key) : undefined;
    await options.update(key, value);
    if (isOptionKey(key)) await recordAudit(request, bus, 'identity', optionAudit(key, before));
    return { success: true, message: '' };
  });

  app.post('/api/option/rest_model_ratio', { config: { access: 'root' } }, async (request) => {
    const before = modelRatioOptionKeys.map((key) => [key, options.get(key)] as const);
    await options.reset(modelRatioOptionKeys);
    await recordAudit(request, bus, 'identity', ...before.map(([key, value]) => optionAudit(key, value)));
    return { success: true, message: '' };
  });
};
