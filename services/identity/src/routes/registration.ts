import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { emailBodySchema, localeFromAcceptLanguage, passwordResetBodySchema, registerBodySchema, turnstileQuerySchema } from '@aigw/contracts';
import type { IdentityContext } from '../context.js';
import { registerWithPassword, resetPassword, sendPasswordReset, sendVerificationCode } from '../registration.js';
import { languageOf } from '../users.js';

/** Registration, email verification codes and password reset (registration.ts). */
export const registrationRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  app.post(
    '/api/user/register',
    {
      schema: { body: registerBodySchema, querystring: turnstileQuerySchema },
      config: { access: 'public' },
    },
    async (request) => {
      await registerWithPassword(context, request.body, languageOf(request.headers['accept-language']));
      return { success: true, message: '' };
    },
  );

  // Mails go out on POST only (rule R12); the human check, when on, comes as `?turnstile=` as on register.
  const mailRoute = { schema: { body: emailBodySchema, querystring: turnstileQuerySchema }, config: { access: 'public' as const } };

  app.post('/api/verification', mailRoute, async (request) => {
    await sendVerificationCode(context, request.body.email, localeFromAcceptLanguage(request.headers['accept-language']));
    return { success: true, message: '' };
  });

  // Same answer whether or not the email is registered: no account enumeration.
  app.post('/api/reset_password', mailRoute, async (request) => {
    await sendPasswordReset(context, request.body.email, localeFromAcceptLanguage(request.headers['accept-language']));
    return { success: true, message: '' };
  });

  app.post('/api/user/reset', { schema: { body: passwordResetBodySchema }, config: { access: 'public' } }, async (request) => {
    return { success: true, message: '', data: await resetPassword(context, request.body.email, request.body.token) };
  });
};
