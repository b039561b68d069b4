import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { updateUserSettingBodySchema, wxPusherBindBodySchema } from '@aigw/contracts';
import { requireAuth, type EgressClient } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { updateUserSetting, userSetting } from '../notification-settings.js';
import { bindByQrCode, createQrCode, unbindWxPusher } from '../wxpusher.js';

/** The signed-in user's notification settings and WxPusher binding (notification-settings.ts, wxpusher.ts). */
export const notificationRoutes: FastifyPluginAsyncZod<{ context: IdentityContext; egress: EgressClient }> = async (app, { context, egress }) => {
  app.get('/api/user/setting', { config: { access: 'user' } }, async (request) => {
    return { success: true, message: '', data: await userSetting(context, requireAuth(request).userId) };
  });

  app.put('/api/user/setting', { schema: { body: updateUserSettingBodySchema }, config: { access: 'user' } }, async (request) => {
    return { success: true, message: '', data: await updateUserSetting(context, egress, requireAuth(request).userId, request.body) };
  });

  // A GET that changes nothing of ours: it only asks WxPusher for a QR code (rule R12 holds).
  app.get('/api/user/wxpusher/qrcode', { config: { access: 'user' } }, async (request) => {
    return { success: true, message: '', data: await createQrCode(context, egress, requireAuth(request).userId) };
  });

  // POST: it stores the uid once the code was scanned (the console polls it while the code is shown).
  app.post('/api/user/wxpusher/bind', { schema: { body: wxPusherBindBodySchema }, config: { access: 'user' } }, async (request) => {
    return { success: true, message: '', data: await bindByQrCode(context, egress, requireAuth(request).userId, request.body.code) };
  });

  app.delete('/api/user/wxpusher', { config: { access: 'user' } }, async (request) => {
    await unbindWxPusher(context, requireAuth(request).userId);
    return { success: true, message: '' };
  });
};
