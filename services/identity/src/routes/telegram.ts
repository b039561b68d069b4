import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { UserStatus } from '@aigw/contracts';
import { requireAuth, UserError } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { UserEntity } from '../entities/user.entity.js';
import { verifyTelegramAuth, type TelegramAuth } from '../domain/telegram.js';
import { publishUserUpdated } from '../events.js';
import { signIn } from './session.js';

const field = z.string().max(256);
/**
 * What the Telegram login widget passes back, which the console forwards as the JSON body: login
 * and bind are POST (rule R12), so another site cannot replay widget data it holds in a victim's
 * browser (a JSON POST needs CORS).
 */
const telegramBodySchema = z.object({
  id: z.string().regex(/^\d{1,20}$/, 'id: expected the Telegram user id'),
  first_name: field.optional(),
  last_name: field.optional(),
  username: field.optional(),
  photo_url: field.optional(),
  auth_date: z.string().regex(/^\d{1,12}$/, 'auth_date: expected seconds since epoch'),
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'hash: expected 64 hex characters'),
  lang: field.optional(),
});

/** Telegram login (for accounts that bound Telegram before) and binding from the settings page. */
export const telegramRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  const { db, options, bus } = context;
  const users = db.getRepository(UserEntity);

  const verified = (query: z.infer<typeof telegramBodySchema>): string => {
    if (!options.get('TelegramOAuthEnabled')) throw new UserError('the administrator has not enabled Telegram login');
    const fields = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as TelegramAuth;
    if (!verifyTelegramAuth(fields, options.get('TelegramBotToken'))) throw new UserError('Telegram authorization is invalid or has expired');
    return query.id;
  };

  app.post('/api/oauth/telegram/login', { schema: { body: telegramBodySchema }, config: { access: 'public' } }, async (request, reply) => {
    const telegramId = verified(request.body);
    const user = await users.findOneBy({ telegram_id: telegramId });
    if (!user) throw new UserError('this Telegram account is not bound to a user; bind it from the settings page first');
    if (user.deleted_at !== null) throw new UserError('the account has been deleted');
    if (user.status !== UserStatus.Enabled) throw new UserError('the user has been banned');
    return { success: true, message: '', data: await signIn(context, request, reply, user) };
  });

  app.post('/api/oauth/telegram/bind', { schema: { body: telegramBodySchema }, config: { access: 'user' } }, async (request) => {
    const telegramId = verified(request.body);
    const owner = await users.findOneBy({ telegram_id: telegramId });
    const self = requireAuth(request).userId;
    if (owner && owner.id !== self) throw new UserError('this Telegram account is already bound to another user');
    await users.update({ id: self }, { telegram_id: telegramId });
    const user = await users.findOneByOrFail({ id: self });
    await publishUserUpdated(bus, user);
    return { success: true, message: '' };
  });
};
