import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FindOptionsWhere } from 'typeorm';
import { z } from 'zod';
import { DISPLAY_NAME_MAX, UserStatus } from '@aigw/contracts';
import { clearCookie, readCookie, requireAuth, setCookie, UnauthorizedError, UserError, type EgressClient } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { UserEntity } from '../entities/user.entity.js';
import { hashPassword } from '../domain/passwords.js';
import { randomString } from '../domain/secrets.js';
import { publishUserRegistered, publishUserUpdated } from '../events.js';
import {
  oauthProviders, wechatAccount, wechatLogin,
  type ExternalAccount, type ExternalLogin, type OAuthEndpoints, type OAuthProvider, type ProviderContext,
} from '../oauth-providers.js';
import { acceptNewUsername, insertUser, languageOf, usernameTaken, type BindingColumn } from '../users.js';
import { signIn } from './session.js';

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
  code: z.string().min(1, 'code: required').max(2048),
  state: z.string().max(64).default(''),
});
/**
 * The WeChat code, in the body: login and bind are POST (rule R12), so another site cannot sign a
 * browser into the account of a code it obtained, nor bind it (a JSON POST needs CORS).
 */
const wechatCodeSchema = z.object({ code: z.string().trim().min(1, 'code: required').max(256) });

const byBinding = (column: BindingColumn, id: string) => ({ [column]: id }) as FindOptionsWhere<UserEntity>;

export interface OAuthRoutesOptions {
  context: IdentityContext;
  egress: EgressClient;
  endpoints: OAuthEndpoints;
}

/**
 * Third-party login (reference 6.6): the state, the GitHub, LinuxDO and OIDC callbacks, and
 * WeChat. A callback logs in (registering on first use when registration is open), or binds the
 * account when the caller is signed in (answer message 'bind', which the console reads).
 */
export const oauthRoutes: FastifyPluginAsyncZod<OAuthRoutesOptions> = async (app, { context, egress, endpoints }) => {
  const { db, bus, kv, options, logger } = context;
  const users = db.getRepository(UserEntity);
  const providerContext: ProviderContext = { egress, options, logger, endpoints };

  const requireEnabled = (login: ExternalLogin) => {
    if (!options.get(login.enabledOption)) throw new UserError(`the administrator has not enabled ${login.label} login`);
  };

  /**
   * The state /api/oauth/state issued to this browser, used once; its value is the invite code
   * it was asked with.
   */
  const takeState = async (request: FastifyRequest, reply: FastifyReply, state: string): Promise<string> => {
    const issuedHere = state !== '' && readCookie(request, STATE_COOKIE) === state;
    const inviteCode = issuedHere ? await kv.take(stateKey(state)) : null;
    if (inviteCode === null) throw new UserError('the authorization state is invalid or has expired; please start again');
    clearCookie(reply, STATE_COOKIE);
    return inviteCode;
  };

  /**
   * `<prefix>_<max id + 1>` as the established product names them, or the provider's suggestion
   * when it passes the username rules (normalised, one script, no invisible characters) and is
   * free regardless of case: a provider cannot hand out a look-alike of another user's name.
   */
  const freshUsername = async (prefix: string, suggested = ''): Promise<string> => {
    if (suggested.trim()) {
      const accepted = await acceptNewUsername(db.manager, suggested).catch((error: unknown) => {
        if (error instanceof UserError) return null;
        throw error;
      });
      if (accepted) return accepted;
    }
    let n = ((await users.maximum('id')) ?? 0) + 1;
    while (await usernameTaken(db.manager, `${prefix}_${n}`)) n++;
    return `${prefix}_${n}`;
  };

  const register = async (request: FastifyRequest, login: ExternalLogin, account: ExternalAccount, inviteCode: string): Promise<UserEntity> => {
    if (!options.get('RegisterEnabled')) throw new UserError('the administrator has turned off new-user registration');
    const inviter = inviteCode ? await users.findOneBy({ aff_code: inviteCode }) : null;
    // The account signs in through the provider only: its password is a random one nobody knows.
    const passwordHash = await hashPassword(randomString(32));
    for (let attempt = 0; ; attempt++) {
      try {
        const user = await insertUser(db.manager, {
          username: await freshUsername(login.usernamePrefix, account.username),
          passwordHash,
          displayName: account.displayName?.slice(0, DISPLAY_NAME_MAX),
          inviterId: inviter && inviter.deleted_at === null ? inviter.id : 0,
          language: languageOf(request.headers['accept-language']),
          bindings: { [login.column]: account.id },
        });
        await publishUserRegistered(bus, user, 'register');
        return user;
      } catch (error) {
        // A concurrent registration took the same number: pick again.
        if (!(error instanceof UserError && error.message.startsWith('username:')) || attempt >= 3) throw error;
      }
    }
  };

  const logIn = async (request: FastifyRequest, reply: FastifyReply, login: ExternalLogin, account: ExternalAccount, inviteCode: string) => {
    const owner = await users.findOneBy(byBinding(login.column, account.id));
    if (owner && owner.deleted_at !== null) throw new UserError('the account has been deleted');
    if (owner && owner.status !== UserStatus.Enabled) throw new UserError('the user has been banned');
    const user = owner ?? (await register(request, login, account, inviteCode));
    return { success: true, message: '', data: await signIn(context, request, reply, user) };
  };

  /** Binds the account to the signed-in user, unless another user, deregistered ones included, holds it. */
  const bind = async (userId: number, login: ExternalLogin, account: ExternalAccount): Promise<void> => {
    const self = await users.findOneBy({ id: userId });
    if (!self || self.deleted_at !== null) throw new UnauthorizedError();
    const owner = await users.findOneBy(byBinding(login.column, account.id));
    if (owner && owner.id !== self.id) throw new UserError(`this ${login.label} account is already bound to another user`);
    await users.update({ id: self.id }, { [login.column]: account.id });
    await publishUserUpdated(bus, self);
  };

  const callback = (provider: OAuthProvider) => async (request: FastifyRequest<{ Querystring: z.infer<typeof callbackQuerySchema> }>, reply: FastifyReply) => {
    requireEnabled(provider);
    const inviteCode = await takeState(request, reply, request.query.state);
    const account = await provider.account(request.query.code, providerContext);
    if (!request.auth) return logIn(request, reply, provider, account, inviteCode);
    await bind(request.auth.userId, provider, account);
    return { success: true, message: 'bind' };
  };

  // The state the console passes to the provider's authorization page (`aff` keeps an invite code).
  app.get('/api/oauth/state', { schema: { querystring: z.object({ aff: z.string().max(32).optional() }) }, config: { access: 'public' } }, async (request, reply) => {
    const state = crypto.randomBytes(9).toString('base64url');
    await kv.set(stateKey(state), request.query.aff ?? '', { ttlMs: STATE_TTL_MS });
    setCookie(reply, STATE_COOKIE, state, { maxAgeSeconds: STATE_TTL_MS / 1000, secure: request.protocol === 'https' });
    return { success: true, message: '', data: state };
  });

  const callbackRoute = { schema: { querystring: callbackQuerySchema }, config: { access: 'public' as const } };
  app.get('/api/oauth/github', callbackRoute, callback(oauthProviders.github));
  app.get('/api/oauth/linuxdo', callbackRoute, callback(oauthProviders.linuxdo));
  app.get('/api/oauth/oidc', callbackRoute, callback(oauthProviders.oidc));

  app.post('/api/oauth/wechat', { schema: { body: wechatCodeSchema }, config: { access: 'public' } }, async (request, reply) => {
    requireEnabled(wechatLogin);
    return logIn(request, reply, wechatLogin, await wechatAccount(request.body.code, providerContext), '');
  });

  app.post('/api/oauth/wechat/bind', { schema: { body: wechatCodeSchema }, config: { access: 'user' } }, async (request) => {
    requireEnabled(wechatLogin);
    await bind(requireAuth(request).userId, wechatLogin, await wechatAccount(request.body.code, providerContext));
    return { success: true, message: '' };
  });
};
