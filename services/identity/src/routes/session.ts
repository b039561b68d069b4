import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { loginBodySchema, msg } from '@aigw/contracts';
import { clearCookie, readCookie, SESSION_COOKIE } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { checkPasswordLogin, signIn, signOut } from '../sign-in.js';

/** Login (username or email) and logout. The session cookie is HttpOnly and SameSite=Strict. */
export const sessionRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  app.post('/api/user/login', { schema: { body: loginBodySchema }, config: { access: 'public' } }, async (request, reply) => {
    const user = await checkPasswordLogin(context, request.body.username, request.body.password);
    const data = await signIn(context, request, reply, user);
    return { success: true, message: 'require_2fa' in data ? msg('auth.enter_authenticator_code') : '', data };
  });

  // POST only: a cross-site link must not end a session (rule R12).
  app.post('/api/user/logout', { config: { access: 'public' } }, async (request, reply) => {
    const secret = readCookie(request, SESSION_COOKIE);
    if (secret) await signOut(context, secret);
    clearCookie(reply, SESSION_COOKIE);
    return { success: true, message: '' };
  });
};
