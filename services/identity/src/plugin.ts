import type { FastifyPluginAsync } from 'fastify';
import { JobName } from '@aigw/contracts';
import { openDatabase, recordedJob, useAccessControl, type Infrastructure } from '@aigw/platform';
import type { IdentityContext } from './context.js';
import { OptionEntity } from './entities/option.entity.js';
import { SessionEntity } from './entities/session.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { identityMigrations } from './migrations/index.js';
import { createOptionStore } from './options-store.js';
import { createSessionStore } from './sessions.js';
import { registerResponders } from './responders.js';
import { ensureRootUser } from './bootstrap.js';
import { statusRoutes } from './routes/status.js';
import { sessionRoutes } from './routes/session.js';
import { registrationRoutes } from './routes/registration.js';
import { selfRoutes } from './routes/self.js';
import { userRoutes } from './routes/users.js';
import { groupRoutes } from './routes/groups.js';
import { optionRoutes } from './routes/options.js';
import { telegramRoutes } from './routes/telegram.js';
import { oauthRoutes } from './routes/oauth.js';
import { createOAuthEgress, defaultOAuthEndpoints, type OAuthEndpoints } from './oauth-providers.js';

export type { OAuthEndpoints } from './oauth-providers.js';

export interface IdentityPluginOptions {
  infra: Infrastructure;
  /** PostgreSQL URL; SQLite under dataDir when absent. */
  databaseUrl?: string;
  dataDir: string;
  /** Database schema (PostgreSQL); tests pass their own to isolate themselves. */
  schema?: string;
  /** Product version shown in /api/status. */
  version: string;
  /** Password of the root user created on first start; the factory default when absent. */
  initialRootPassword?: string;
  /** Where GitHub and LinuxDO are reached. Only tests change it (a loopback fake); it is no setting. */
  oauthEndpoints?: Partial<OAuthEndpoints>;
}

const SESSION_SWEEP_EVERY_MS = 3600_000;

/** Identity: users, sessions, access tokens, invites, groups, options and /api/status. */
const identityPlugin: FastifyPluginAsync<IdentityPluginOptions> = async (app, options) => {
  useAccessControl(app, 'identity');
  const { bus, kv, jobs, logger } = options.infra;
  const db = await openDatabase({
    url: options.databaseUrl,
    dataDir: options.dataDir,
    schema: options.schema ?? 'identity',
    entities: [UserEntity, SessionEntity, OptionEntity],
    migrations: identityMigrations,
    logger,
  });
  const optionStore = await createOptionStore(db, bus, logger);
  const context: IdentityContext = {
    db, bus, kv, logger,
    options: optionStore,
    sessions: createSessionStore(db),
    version: options.version,
    startTime: Math.floor(Date.now() / 1000),
  };
  const responders = await registerResponders(context);
  await ensureRootUser(db, bus, logger, options.initialRootPassword);

  await jobs.work(JobName.IdentitySessionsSweep, recordedJob(JobName.IdentitySessionsSweep, async () => {
    const removed = await context.sessions.sweep();
    if (removed) logger.info({ removed }, 'expired sessions removed');
    return `removed ${removed} expired session${removed === 1 ? '' : 's'}`;
  }, { kv, logger }));
  await jobs.repeat(JobName.IdentitySessionsSweep, {}, { everyMs: SESSION_SWEEP_EVERY_MS });

  // Third-party logins call out; private addresses follow the root option the channels use.
  const oauthEgress = createOAuthEgress(() => optionStore.get('AllowPrivateNetworkUpstreams'));

  app.addHook('onClose', async () => {
    await oauthEgress.close();
    await Promise.all(responders.map((responder) => responder.unsubscribe()));
    await optionStore.close();
    await db.destroy();
  });

  for (const routes of [statusRoutes, sessionRoutes, registrationRoutes, selfRoutes, userRoutes, groupRoutes, optionRoutes, telegramRoutes]) {
    await app.register(routes, { context });
  }
  await app.register(oauthRoutes, { context, egress: oauthEgress, endpoints: { ...defaultOAuthEndpoints, ...options.oauthEndpoints } });
};

export default identityPlugin;
