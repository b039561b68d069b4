import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { emailBindBodySchema, updateSelfBodySchema, type UsableGroups } from '@aigw/contracts';
import { clearCookie, readCookie, requireAuth, SESSION_COOKIE } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { bindEmail, deleteSelf, inviteCode, renewAccessToken, selfView, updateSelf, usableGroups } from '../self-service.js';

/** The signed-in user's own account (self-service.ts): profile, password, access token, invite code, deletion. */
export const selfRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  // Open to a root that must change the factory password first (rule R8), as is the change below.
  app.get('/api/user/self', { config: { access: 'user', allowedBeforePasswordChange: true } }, async (request) => {
    return { success: true, message: '', data: await selfView(context, requireAuth(request).userId) };
  });

  app.put('/api/user/self', { schema: { body: updateSelfBodySchema }, config: { access: 'user', allowedBeforePasswordChange: true } }, async (request) => {
    await updateSelf(context, requireAuth(request), request.body, readCookie(request, SESSION_COOKIE));
    return { success: true, message: '' };
  });

  app.delete('/api/user/self', { config: { access: 'user' } }, async (request, reply) => {
    await deleteSelf(context, requireAuth(request).userId);
    clearCookie(reply, SESSION_COOKIE);
    return { success: true, message: '' };
  });

  // POST: it replaces the token (rule R12; docs/security.md, compatibility exceptions).
  app.post('/api/user/token', { config: { access: 'user' } }, async (request) => {
    return { success: true, message: '', data: await renewAccessToken(context, requireAuth(request).userId) };
  });

  app.get('/api/user/aff', { config: { access: 'user' } }, async (request) => {
    return { success: true, message: '', data: await inviteCode(context, requireAuth(request).userId) };
  });

  app.get('/api/user/self/groups', { config: { access: 'user' } }, async (request) => {
    const data: UsableGroups = await usableGroups(context, requireAuth(request).userId);
    return { success: true, message: '', data };
  });

  app.post('/api/oauth/email/bind', { schema: { body: emailBindBodySchema }, config: { access: 'user' } }, async (request) => {
    await bindEmail(context, requireAuth(request).userId, request.body.email, request.body.code);
    return { success: true, message: '' };
  });
};
