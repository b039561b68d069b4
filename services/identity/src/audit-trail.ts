import type { FastifyPluginAsync } from 'fastify';
import type { DataSource } from 'typeorm';
import {
  auditRecordSchema,
  auditServices,
  auditSubjects,
  type AuditQuery,
  type AuditRecord,
  type AuditService,
  type AuditTarget,
  type AuditValues,
  type Page,
} from '@aigw/contracts';
import { onEvent, type Logger, type Subscription } from '@aigw/platform';
import type { IdentityContext } from './context.js';
import { AuditRecordEntity } from './entities/audit-record.entity.js';
import type { UserEntity } from './entities/user.entity.js';
import { auditRoutes } from './routes/audit.js';

/**
 * Identity keeps the audit trail of every service (issue 22, item 13): a durable consumer of the
 * four `<service>.audit.recorded` subjects stores each record once (its id is the key), and root
 * reads them at GET /api/audit/.
 */
export interface AuditStore {
  /** Stores a record; a record already stored (a redelivery) is left as it is. */
  save(record: AuditRecord): Promise<void>;
  /** A page of records matching the filters, newest first. */
  list(query: AuditQuery): Promise<Page<AuditRecord>>;
}

export function createAuditStore(db: DataSource): AuditStore {
  const repository = db.getRepository(AuditRecordEntity);
  return {
    async save(record) {
      const row: AuditRecordEntity = {
        id: record.id,
        time_ms: record.time,
        service: record.service,
        actor_id: record.actor.user_id,
        actor_username: record.actor.username,
        actor_role: record.actor.role,
        action: record.action,
        target_type: record.target.type,
        target_id: record.target.id,
        target_label: record.target.label,
        before_values: record.before === null ? null : JSON.stringify(record.before),
        after_values: record.after === null ? null : JSON.stringify(record.after),
        ip: record.ip,
      };
      // ON CONFLICT DO NOTHING on PostgreSQL, INSERT OR IGNORE on SQLite.
      await repository.createQueryBuilder().insert().into(AuditRecordEntity).values(row).orIgnore().execute();
    },
    async list(query) {
      const builder = repository
        .createQueryBuilder('audit')
        .orderBy('audit.time_ms', 'DESC')
        .addOrderBy('audit.id', 'DESC')
        .skip((query.p - 1) * query.page_size)
        .take(query.page_size);
      if (query.actor) {
        if (/^\d{1,9}$/.test(query.actor))
          builder.andWhere('(audit.actor_id = :actorId OR audit.actor_username = :actor)', { actorId: Number(query.actor), actor: query.actor });
        else builder.andWhere('audit.actor_username = :actor', { actor: query.actor });
      }
      if (query.action) builder.andWhere('audit.action = :action', { action: query.action });
      if (query.target_type) builder.andWhere('audit.target_type = :targetType', { targetType: query.target_type });
      if (query.target_id) builder.andWhere('audit.target_id = :targetId', { targetId: query.target_id });
      if (query.start_timestamp !== undefined) builder.andWhere('audit.time_ms >= :start', { start: query.start_timestamp * 1000 });
      if (query.end_timestamp !== undefined) builder.andWhere('audit.time_ms < :end', { end: (query.end_timestamp + 1) * 1000 });
      const [rows, total] = await builder.getManyAndCount();
      return { items: rows.map(toRecord), total, page: query.p, page_size: query.page_size };
    },
  };
}

function toRecord(row: AuditRecordEntity): AuditRecord {
  return {
    id: row.id,
    time: row.time_ms,
    service: row.service as AuditService,
    actor: { user_id: row.actor_id, username: row.actor_username, role: row.actor_role },
    action: row.action as AuditRecord['action'],
    target: { type: row.target_type as AuditRecord['target']['type'], id: row.target_id, label: row.target_label },
    before: row.before_values === null ? null : (JSON.parse(row.before_values) as AuditRecord['before']),
    after: row.after_values === null ? null : (JSON.parse(row.after_values) as AuditRecord['after']),
    ip: row.ip,
  };
}

/** The consumer: one durable name over the four subjects; a failed write is delivered again. */
export function subscribeAuditRecords(store: AuditStore, bus: IdentityContext['bus'], logger: Logger): Promise<Subscription[]> {
  return Promise.all(
    auditServices.map((service) =>
      onEvent(
        bus,
        auditSubjects[service],
        async (record) => {
          // The stream says who published it; a record claiming another service is kept under the publisher.
          await store.save(auditRecordSchema.parse({ ...record, service }));
        },
        { durable: 'identity-audit', maxDeliver: 30, logger },
      ),
    ),
  );
}

/** The audit trail in identity: the consumer, and the root-only route. */
export const auditTrail: FastifyPluginAsync<{ context: IdentityContext }> = async (app, { context }) => {
  const store = createAuditStore(context.db);
  const subscriptions = await subscribeAuditRecords(store, context.bus, context.logger);
  app.addHook('onClose', async () => {
    await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
  });
  await app.register(auditRoutes, { store });
};

/** A user as audit records show it (the profile an admin edits; never a credential). */
export function auditedUser(user: Pick<UserEntity, 'username' | 'display_name' | 'email' | 'group' | 'role' | 'status' | 'rate_limits'>): AuditValues {
  return {
    username: user.username,
    display_name: user.display_name,
    email: user.email,
    group: user.group,
    role: user.role,
    status: user.status,
    rate_limits: user.rate_limits,
  };
}

/** A user as the target of a record. */
export function userTarget(user: Pick<UserEntity, 'id' | 'username'>): AuditTarget {
  return { type: 'user', id: String(user.id), label: user.username };
}
