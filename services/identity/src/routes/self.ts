import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { emailBindBodySchema, Role, updateSelfBodySchema } from '@aigw/contracts';
import {
  clearCookie, ForbiddenError, passwordChangeRequiredMessage, readCookie, requireAuth, SESSION_COOKIE, UnauthorizedError, UserError,
} from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { UserEntity } from '../entities/user.entity.js';
import { hashPassword, verifyPassword } from '../domain/passwords.js';
import { randomString, safeEqual, sha256 } from '../domain/secrets.js';
import { fetchOwnBalance } from '../balances.js';
import { publishSessionRevoked, publishUserDeleted, publishUserUpdated } from '../events.js';
import { renameFields, toUserView, updateUser } from '../users.js';

const verificationKey = (email: string) => `identity:verification:${email.toLowerCase()}`;

/** The signed-in user's own account: profile, password, access token, invite code, deletion. */
export const selfRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  const { db, bus, kv, logger, sessions, options } = context;
  const users = db.getRepository(UserEntity);

  const loadSelf = async (userId: number): Promise<UserEntity> => {
    const user = await users.findOneBy({ id: userId });
    if (!user || user.deleted_at !== null) throw new UnauthorizedError();
    return user;
  };

  // Open to a root that must change the factory password first (rule R8), as is the change below.
  app.get('/api/user/self', { config: { access: 'user', allowedBeforePasswordChange: true } }, async (request) => {
    const user = await loadSelf(requireAuth(request).userId);
    const balance = await fetchOwnBalance(bus, logger, user.id);
    return { success: true, message: '', data: toUserView(user, balance) };
  });

  app.put('/api/user/self', { schema: { body: updateSelfBodySchema }, config: { access: 'user', allowedBeforePasswordChange: true } }, async (request) => {
    const auth = requireAuth(request);
    const body = request.body;
    if (auth.passwordChangeRequired && !body.password) throw new ForbiddenError(passwordChangeRequiredMessage);
    const user = await loadSelf(auth.userId);
    const changes: Partial<UserEntity> = {};
    Object.assign(changes, await renameFields(db.manager, user, body.username));
    if (body.display_name !== undefined) changes.display_name = body.display_name;
    if (body.password) {
      if (!(await verifyPassword(user.password_hash, body.original_password ?? ''))) throw new UserError('original_password: the current password is wrong');
      changes.password_hash = await hashPassword(body.password);
      changes.password_is_default = false;
      // The system access token stops working too (issue 22.6): the user makes a new one if needed.
      changes.access_token_hash = null;
    }
    if (Object.keys(changes).length) await updateUser(db.manager, user.id, changes);
    if (changes.password_hash) {
      // Every other session of this user ends, and the access token (cleared above) with them; the one that made the change stays.
      const current = readCookie(request, SESSION_COOKIE);
      await sessions.revokeAll(user.id, current ? sha256(current) : undefined);
      await publishSessionRevoked(bus, user.id, null);
    }
    if (changes.username || changes.display_name !== undefined) await publishUserUpdated(bus, { ...user, ...changes });
    return { success: true, message: '' };
  });

  app.delete('/api/user/self', { config: { access: 'user' } }, async (request, reply) => {
    const user = await loadSelf(requireAuth(request).userId);
    if (user.role >= Role.Root) throw new UserError('the super admin cannot delete their own account');
    await users.update({ id: user.id }, { deleted_at: Date.now(), access_token_hash: null });
    await sessions.revokeAll(user.id);
    await publishSessionRevoked(bus, user.id, null);
    await publishUserDeleted(bus, user.id);
    clearCookie(reply, SESSION_COOKIE);
    return { success: true, message: '' };
  });

  // POST: it replaces the token (rule R12; docs/security.md, compatibility exceptions).
  app.post('/api/user/token', { config: { access: 'user' } }, async (request) => {
    const user = await loadSelf(requireAuth(request).userId);
    const token = randomString(32);
    await users.update({ id: user.id }, { access_token_hash: sha256(token) });
    // The previous token stops working everywhere.
    await publishSessionRevoked(bus, user.id, null);
    return { success: true, message: '', data: token };
  });

  app.get('/api/user/aff', { config: { access: 'user' } }, async (request) => {
    const user = await loadSelf(requireAuth(request).userId);
    return { success: true, message: '', data: user.aff_code };
  });

  app.get('/api/user/self/groups', { config: { access: 'user' } }, async (request) => {
    const user = await loadSelf(requireAuth(request).userId);
    const ratios = options.get('GroupRatio');
    const usable: Record<string, string> = { ...options.get('UserUsableGroups') };
    if (!(user.group in usable)) usable[user.group] = 'your group';
    const data = Object.fromEntries(
      Object.entries(usable).filter(([group]) => group in ratios).map(([group, desc]) => [group, { ratio: ratios[group], desc }]),
    );
    return { success: true, message: '', data };
  });

  app.post('/api/oauth/email/bind', { schema: { body: emailBindBodySchema }, config: { access: 'user' } }, async (request) => {
    const user = await loadSelf(requireAuth(request).userId);
    const { email, code } = request.body;
    const expected = await kv.get(verificationKey(email));
    if (!expected || !safeEqual(expected, code)) throw new UserError('code: wrong or expired verification code');
    const owner = await users.findOneBy({ email });
    if (owner && owner.id !== user.id) throw new UserError('email: already used');
    await kv.delete(verificationKey(email));
    await users.update({ id: user.id }, { email });
    await publishUserUpdated(bus, { ...user, email });
    return { success: true, message: '' };
  });
};
