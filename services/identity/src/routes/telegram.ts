import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { msg } from '@aigw/contracts';
import { requireAuth, UserError } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { verifyTelegramAuth, type TelegramAuth } from '../domain/telegram.js';
import { bindExternalAccount, ensureMaySignIn } from '../external-accounts.js';
import { findByBinding } from '../users.js';
import { signIn } from '../sign-in.js';

const field = z.string().max(256);
/**
 * What the Telegram login widget passes back, which the console forwards as the JSON body: login
 * and bind are POST (rule R12), so another site cannot replay widget data it holds in a victim's
 * browser (a JSON POST needs CORS).
 */
const telegramBodySchema = z.object({
  id: z.string().regex(/^\d{1,20}$/, msg('telegram.id_format')),
  first_name: field.optional(),
  last_name: field.optional(),
  username: field.optional(),
  photo_url: field.optional(),
  auth_date: z.string().regex(/^\d{1,12}$/, msg('telegram.auth_date_format')),
  hash: z.string().regex(/^[0-9a-f]{64}$/, msg('telegram.hash_format')),
  lang: field.optional(),
});

/** Telegram login (for accounts that bound Telegram before) and binding from the settings page. */
export const telegramRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  const { db, options } = context;

  const verified = (query: z.infer<typeof telegramBodySchema>): string => {
    if (!options.get('TelegramOAuthEnabled')) throw new UserError(msg('oauth.not_enabled', { provider: 'Telegram' }));
    const fields = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as TelegramAuth;
    if (!verifyTelegramAuth(fields, options.get('TelegramBotToken'))) throw new UserError(msg('telegram.auth_invalid'));
    return query.id;
  };

  app.post('/api/oauth/telegram/login', { schema: { body: telegramBodySchema }, config: { access: 'public' } }, async (request, reply) => {
    const telegramId = verified(request.body);
    const owner = await findByBinding(db.manager, 'telegram_id', telegramId);
    if (!owner) throw new UserError(msg('telegram.not_bound'));
    return { success: true, message: '', data: await signIn(context, request, reply, ensureMaySignIn(owner)) };
  });

  app.post('/api/oauth/telegram/bind', { schema: { body: telegramBodySchema }, config: { access: 'user' } }, async (request) => {
    const telegramId = verified(request.body);
    await bindExternalAccount(context, requireAuth(request).userId, { column: 'telegram_id', label: 'Telegram' }, telegramId);
    return { success: true, message: '' };
  });
};
