import type { FastifyPluginAsync } from 'fastify';
import { JobName } from '@aigw/contracts';
import {
  deadLetterEntities,
  deadLetterRoutes,
  deriveKey,
  keepDeadLetters,
  openDatabase,
  recordedJob,
  useAccessControl,
  type Infrastructure,
} from '@aigw/platform';
import type { IdentityContext } from './context.js';
import { OptionEntity } from './entities/option.entity.js';
import { SessionEntity } from './entities/session.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { BackupCodeEntity, TwoFactorEntity } from './entities/two-factor.entity.js';
import { PasskeyEntity } from './entities/passkey.entity.js';
import { createSecondFactorStore } from './second-factors.js';
import { createPasskeyService } from './passkeys.js';
import { createStepUpStore, STEP_UP_TTL_MS_DEFAULT } from './step-up.js';
import { twoFactorRoutes } from './routes/two-factor.js';
import { passkeyRoutes } from './routes/passkeys.js';
import { verifyRoutes } from './routes/verify.js';
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
import { notificationRoutes } from './routes/notifications.js';
import { AuditRecordEntity } from './entities/audit-record.entity.js';
import { auditTrail } from './audit-trail.js';
import { createOAuthEgress, defaultOAuthEndpoints, type OAuthEndpoints } from './oauth-providers.js';

export type { OAuthEndpoints } from './oauth-providers.js';
/** For main.ts and the gateway's all-in-one composition, which read the same env. */
export { identityConfigShape, identitySettings } from './config.js';

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
  /**
   * Whether the server's public entry listens beyond loopback (HOST). Then a root still holding
   * the factory password may only read its profile and change the password (rule R8). Default true.
   */
  reachableBeyondLoopback?: boolean;
  /** Secret from which the keys sealing TOTP secrets and hashing backup codes are derived; every identity replica needs the same. */
  twoFactorKeySecret: string;
  /** How long a step-up (`POST /api/verify`) keeps sensitive actions open; default 5 minutes. */
  stepUpTtlMs?: number;
  /** Where GitHub and LinuxDO are reached. Only tests change it (a loopback fake); it is no setting. */
  oauthEndpoints?: Partial<OAuthEndpoints>;
}

const SESSION_SWEEP_EVERY_MS = 3600_000;

/** Identity: users, sessions, access tokens, invites, groups, options and /api/status. */
const identityPlugin: FastifyPluginAsync<IdentityPluginOptions> = async (app, options) => {
  useAccessControl(app, 'identity');
  const { kv, jobs, logger } = options.infra;
  const db = await openDatabase({
    url: options.databaseUrl,
    dataDir: options.dataDir,
    schema: options.schema ?? 'identity',
    entities: [UserEntity, SessionEntity, OptionEntity, TwoFactorEntity, BackupCodeEntity, PasskeyEntity, AuditRecordEntity, deadLetterEntities.identity],
    migrations: identityMigrations,
    logger,
  });
  // Every subscription goes through this bus, so what identity's consumers give up stays in its database.
  const deadLetters = keepDeadLetters(options.infra.bus, 'identity', { db, logger });
  const { bus } = deadLetters;
  const optionStore = await createOptionStore(db, bus, logger);
  const reachableBeyondLoopback = options.reachableBeyondLoopback ?? true;
  const context: IdentityContext = {
    db,
    bus,
    kv,
    logger,
    options: optionStore,
    sessions: createSessionStore(db, { reachableBeyondLoopback }),
    reachableBeyondLoopback,
    secondFactors: createSecondFactorStore(db, kv, {
      seal: deriveKey(options.twoFactorKeySecret, 'identity.totp'),
      hash: deriveKey(options.twoFactorKeySecret, 'identity.backup-codes'),
    }),
    passkeys: createPasskeyService(db, optionStore),
    // Derived from the 2FA secret: every identity replica has it, and it never changes.
    notificationKey: deriveKey(options.twoFactorKeySecret, 'identity.notification-settings'),
    stepUp: createStepUpStore(kv, options.stepUpTtlMs ?? STEP_UP_TTL_MS_DEFAULT),
    version: options.version,
    startTime: Math.floor(Date.now() / 1000),
  };
  const responders = await registerResponders(context);
  await ensureRootUser(db, bus, logger, options.initialRootPassword);

  await jobs.work(
    JobName.IdentitySessionsSweep,
    recordedJob(
      JobName.IdentitySessionsSweep,
      async () => {
        const removed = await context.sessions.sweep();
        if (removed) logger.info({ removed }, 'expired sessions removed');
        // not a console message: the job's summary, recorded with its run.
        return `removed ${removed} expired session${removed === 1 ? '' : 's'}`;
      },
      { kv, logger },
    ),
  );
  await jobs.repeat(JobName.IdentitySessionsSweep, {}, { everyMs: SESSION_SWEEP_EVERY_MS });

  // Third-party logins call out; private addresses follow the root option the channels use.
  const oauthEgress = createOAuthEgress(() => optionStore.get('AllowPrivateNetworkUpstreams'));

  app.addHook('onClose', async () => {
    await oauthEgress.close();
    await Promise.all(responders.map((responder) => responder.unsubscribe()));
    await optionStore.close();
    await db.destroy();
  });

  for (const routes of [
    statusRoutes,
    sessionRoutes,
    registrationRoutes,
    selfRoutes,
    userRoutes,
    groupRoutes,
    optionRoutes,
    telegramRoutes,
    twoFactorRoutes,
    passkeyRoutes,
    verifyRoutes,
  ]) {
    await app.register(routes, { context });
  }
  await app.register(oauthRoutes, { context, egress: oauthEgress, endpoints: { ...defaultOAuthEndpoints, ...options.oauthEndpoints } });
  // Users' notification URLs are judged like third-party logins' (rule R1), and WxPusher is called the same way.
  await app.register(notificationRoutes, { context, egress: oauthEgress });
  // The audit trail of every service's admin actions: its consumer and GET /api/audit/.
  await app.register(auditTrail, { context });
  await app.register(deadLetterRoutes, { deadLetters });
};

export default identityPlugin;
