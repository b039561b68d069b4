import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ChannelStatus, type KnownModel } from '@aigw/contracts';
import { requireAuth } from '@aigw/platform';
import type { ChannelsContext } from '../context.js';
import { ChannelEntity } from '../entities/index.js';
import { enabledModels } from '../abilities.js';
import { splitList } from '../domain/channel-fields.js';
import { modelCatalogue } from '../domain/model-catalogue.js';

/** Model lists: what admins pick from in the editor, and what users may call. */
export const modelRoutes: FastifyPluginAsyncZod<{ context: ChannelsContext }> = async (app, { context }) => {
  const channels = context.db.getRepository(ChannelEntity);
  const listed = async (where: { status?: number } = {}) => channels.find({ where, select: { type: true, models: true } });

  app.get('/api/channel/models', { config: { access: 'admin' } }, async () => {
    const known = new Map<string, KnownModel>();
    const add = (model: string, type: number, owner: string) => {
      const entry = known.get(model) ?? { id: model, object: 'model' as const, owned_by: owner, channel_types: [] };
      if (!entry.channel_types.includes(type)) entry.channel_types.push(type);
      known.set(model, entry);
    };
    for (const [type, entry] of Object.entries(modelCatalogue)) for (const model of entry.models) add(model, Number(type), entry.owner);
    for (const row of await listed())
      for (const model of splitList(row.models)) add(model, row.type, modelCatalogue[row.type as keyof typeof modelCatalogue]?.owner ?? 'custom');
    return { success: true, message: '', data: [...known.values()].sort((a, b) => a.id.localeCompare(b.id)) };
  });

  app.get('/api/channel/models_enabled', { config: { access: 'admin' } }, async () => {
    return { success: true, message: '', data: await enabledModels(context.db) };
  });

  /** Channel type -> models of its enabled channels (the dashboard's model list). */
  app.get('/api/models', { config: { access: 'user' } }, async () => {
    const byType: Record<string, Set<string>> = {};
    for (const row of await listed({ status: ChannelStatus.Enabled })) {
      const models = (byType[String(row.type)] ??= new Set());
      for (const model of splitList(row.models)) models.add(model);
    }
    const data = Object.fromEntries(Object.entries(byType).map(([type, models]) => [type, [...models].sort()]));
    return { success: true, message: '', data };
  });

  /** The models the caller's group can use: enabled abilities of that group. */
  app.get('/api/user/models', { config: { access: 'user' } }, async (request) => {
    return { success: true, message: '', data: await enabledModels(context.db, requireAuth(request).group) };
  });
};
