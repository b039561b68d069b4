import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { msg, wechatCodeBodySchema } from '@aigw/contracts';
import { clearCookie, readCookie, requireAuth, setCookie, UserError, type EgressClient } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { bindExternalAccount, externalAccountUser } from '../external-accounts.js';
import {
  oauthProviders,
  wechatAccount,
  wechatLogin,
  type ExternalAccount,
  type ExternalLogin,
  type OAuthEndpoints,
  type OAuthProvider,
  type ProviderContext,
} from '../oauth-providers.js';
import { languageOf } from '../users.js';
import { signIn } from '../sign-in.js';

/** A state lives while the user is on the provider's authorization page. */
const STATE_TTL_MS = 10 * 60_000;
const stateKey = (state: string) => `identity:oauth-state:${state}`;
/**
 * The state is also kept in this browser's cookie and must come back with the callback: a code
 * and state an attacker obtained for their own account cannot be replayed in a victim's browser
 * to sign the victim in as the attacker (login CSRF).
 */
const STATE_COOKIE = 'oauth_state';

const callbackQuerySchema = z.object({
  code: z.string().min(1).max(2048),
  state: z.string().max(64).default(''),
});

export interface OAuthRoutesOptions {
  context: IdentityContext;
  egress: EgressClient;
  endpoints: OAuthEndpoints;
}

/**
 * Third-party login (docs/compatibility.md section 5): the state, the GitHub, LinuxDO and OIDC
 * callbacks, and WeChat. A callback logs in (registering on first use when registration is open),
 * or binds the account when the caller is signed in (answer message 'bind', which the console
 * reads).
 */
export const oauthRoutes: FastifyPluginAsyncZod<OAuthRoutesOptions> = async (app, { context, egress, endpoints }) => {
  const { kv, options, logger } = context;
  const providerContext: ProviderContext = { egress, options, logger, endpoints };

  const requireEnabled = (login: ExternalLogin) => {
    if (!options.get(login.enabledOption)) throw new UserError(msg('oauth.not_enabled', { provider: login.label }));
  };

  /**
   * The state /api/oauth/state issued to this browser, used once; its value is the invite code
   * it was asked with.
   */
  const takeState = async (request: FastifyRequest, reply: FastifyReply, state: string): Promise<string> => {
    const issuedHere = state !== '' && readCookie(request, STATE_COOKIE) === state;
    const inviteCode = issuedHere ? await kv.take(stateKey(state)) : null;
    if (inviteCode === null) throw new UserError(msg('oauth.state_invalid'));
    clearCookie(reply, STATE_COOKIE);
    return inviteCode;
  };

  const logIn = async (request: FastifyRequest, reply: FastifyReply, login: ExternalLogin, account: ExternalAccount, inviteCode: string) => {
    const user = await externalAccountUser(context, login, account, inviteCode, languageOf(request.headers['accept-language']));
    return { success: true, message: '', data: await signIn(context, request, reply, user) };
  };

  const callback = (provider: OAuthProvider) => async (request: FastifyRequest<{ Querystring: z.infer<typeof callbackQuerySchema> }>, reply: FastifyReply) => {
    requireEnabled(provider);
    const inviteCode = await takeState(request, reply, request.query.state);
    const account = await provider.account(request.query.code, providerContext);
    if (!request.auth) return logIn(request, reply, provider, account, inviteCode);
    await bindExternalAccount(context, request.auth.userId, provider, account.id);
    return { success: true, message: 'bind' };
  };

  // The state the console passes to the provider's authorization page (`aff` keeps an invite code).
  app.get(
    '/api/oauth/state',
    { schema: { querystring: z.object({ aff: z.string().max(32).optional() }) }, config: { access: 'public' } },
    async (request, reply) => {
      const state = crypto.randomBytes(9).toString('base64url');
      await kv.set(stateKey(state), request.query.aff ?? '', { ttlMs: STATE_TTL_MS });
      setCookie(reply, STATE_COOKIE, state, { maxAgeSeconds: STATE_TTL_MS / 1000, secure: request.protocol === 'https' });
      return { success: true, message: '', data: state };
    },
  );

  const callbackRoute = { schema: { querystring: callbackQuerySchema }, config: { access: 'public' as const } };
  app.get('/api/oauth/github', callbackRoute, callback(oauthProviders.github));
  app.get('/api/oauth/linuxdo', callbackRoute, callback(oauthProviders.linuxdo));
  app.get('/api/oauth/oidc', callbackRoute, callback(oauthProviders.oidc));

  // The WeChat code comes in the body: login and bind are POST (rule R12), so another site cannot
  // sign a browser into the account of a code it obtained, nor bind it (a JSON POST needs CORS).
  app.post('/api/oauth/wechat', { schema: { body: wechatCodeBodySchema }, config: { access: 'public' } }, async (request, reply) => {
    requireEnabled(wechatLogin);
    return logIn(request, reply, wechatLogin, await wechatAccount(request.body.code, providerContext), '');
  });

  app.post('/api/oauth/wechat/bind', { schema: { body: wechatCodeBodySchema }, config: { access: 'user' } }, async (request) => {
    requireEnabled(wechatLogin);
    const { userId } = requireAuth(request);
    const account = await wechatAccount(request.body.code, providerContext);
    await bindExternalAccount(context, userId, wechatLogin, account.id);
    return { success: true, message: '' };
  });
};
