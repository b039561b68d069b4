import { In, type DataSource } from 'typeorm';
import type { AsyncTask, DrawingTask, Page } from '@aigw/contracts';
import { TaskEntity } from '../entities/index.js';

/**
 * The relay's async tasks, every platform in one table (docs/architecture.md section 3.4). The
 * task relays write rows; the console's lists and the poller read them. Every filter is a bound
 * parameter (rule R6) and has an index (see the migration). Times are unix milliseconds.
 */

export const TaskPlatform = { Midjourney: 'midjourney', Suno: 'suno' } as const;
export type TaskPlatformName = (typeof TaskPlatform)[keyof typeof TaskPlatform];

export const TaskStatus = {
  NotStart: 'NOT_START',
  Submitted: 'SUBMITTED',
  Queued: 'QUEUED',
  InProgress: 'IN_PROGRESS',
  Failure: 'FAILURE',
  Success: 'SUCCESS',
  Unknown: 'UNKNOWN',
} as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

/** What the poller still asks the upstream about: everything but the two final states. */
export const UNFINISHED_STATUSES: readonly TaskStatus[] = [
  TaskStatus.NotStart,
  TaskStatus.Submitted,
  TaskStatus.Queued,
  TaskStatus.InProgress,
  TaskStatus.Unknown,
];

/** A new task: who, where and what; everything else starts empty. `submit_time` defaults to now. */
export type NewTask = Pick<TaskEntity, 'platform' | 'user_id' | 'action'> &
  Partial<Omit<TaskEntity, 'id' | 'platform' | 'user_id' | 'action' | 'created_at' | 'updated_at'>>;

/** What a task relay or the poller changes on a task; who owns it and on which platform never change. */
export type TaskChanges = Partial<Omit<TaskEntity, 'id' | 'platform' | 'user_id' | 'created_at' | 'updated_at'>>;

/** The lists' filters after access rules: `userId` set for the self lists, `channelId` only by admins. */
export interface TaskFilter {
  /** The drawing list reads one platform; the task list every other one. */
  platform: { only: string } | { except: string };
  userId?: number;
  channelId?: number;
  /** The upstream's task id (mj_id), exact. */
  taskId?: string;
  /** Unix seconds, inclusive, against submit_time. */
  startTimestamp?: number;
  endTimestamp?: number;
}

/**
 * Text as the databases take it: PostgreSQL refuses NUL in text, and clients' prompts and
 * upstreams' answers may carry one.
 */
function storable<T extends object>(fields: T): T {
  const out = { ...fields } as Record<string, unknown>;
  for (const [name, value] of Object.entries(out)) if (typeof value === 'string' && value.includes('\u0000')) out[name] = value.replaceAll('\u0000', '');
  return out as T;
}

/** An upstream task id as stored (1 to 128 characters, no NUL): anything else names no task. */
const isTaskId = (taskId: string) => taskId.length > 0 && taskId.length <= 128 && !taskId.includes('\u0000');

/** Stores a new task. A second task with the same platform and upstream id is refused (a unique violation: see `isUniqueViolation`). */
export async function insert(db: DataSource, task: NewTask, now = Date.now()): Promise<TaskEntity> {
  const repository = db.getRepository(TaskEntity);
  return repository.save(repository.create(storable({ submit_time: now, ...task, created_at: now, updated_at: now })));
}

/** A page of tasks, newest submit first (then newest id). */
export async function list(db: DataSource, filter: TaskFilter, page: { p: number; page_size: number }): Promise<{ rows: TaskEntity[]; total: number }> {
  const builder = db.getRepository(TaskEntity).createQueryBuilder('task');
  if ('only' in filter.platform) builder.andWhere('task.platform = :platform', { platform: filter.platform.only });
  else builder.andWhere('task.platform <> :platform', { platform: filter.platform.except });
  if (filter.userId !== undefined) builder.andWhere('task.user_id = :userId', { userId: filter.userId });
  if (filter.channelId) builder.andWhere('task.channel_id = :channelId', { channelId: filter.channelId });
  if (filter.taskId) builder.andWhere('task.task_id = :taskId', { taskId: filter.taskId });
  if (filter.startTimestamp !== undefined) builder.andWhere('task.submit_time >= :start', { start: filter.startTimestamp * 1000 });
  if (filter.endTimestamp !== undefined) builder.andWhere('task.submit_time < :end', { end: (filter.endTimestamp + 1) * 1000 });
  const [rows, total] = await builder
    .orderBy('task.submit_time', 'DESC')
    .addOrderBy('task.id', 'DESC')
    .offset((page.p - 1) * page.page_size)
    .limit(page.page_size)
    .getManyAndCount();
  return { rows, total };
}

/** The task of a platform with this upstream id, if `userId` (when given) owns it: follow-ups check their original with it. */
export async function byTaskId(db: DataSource, platform: string, taskId: string, userId?: number): Promise<TaskEntity | null> {
  if (!isTaskId(taskId)) return null;
  return db.getRepository(TaskEntity).findOneBy({ platform, task_id: taskId, ...(userId === undefined ? {} : { user_id: userId }) });
}

/** The tasks of a platform with these upstream ids that `userId` owns (a client's batch fetch), in the order asked. */
export async function byTaskIds(db: DataSource, platform: string, taskIds: readonly string[], userId: number): Promise<TaskEntity[]> {
  const wanted = [...new Set(taskIds.filter(isTaskId))];
  if (wanted.length === 0) return [];
  const rows = await db.getRepository(TaskEntity).findBy({ platform, task_id: In(wanted), user_id: userId });
  const byId = new Map(rows.map((row) => [row.task_id, row]));
  return wanted.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Adds a charge to a task (a modal confirming it, a submit the upstream says it already had),
 * with its request id: a refund gives back all of them. One statement, so two at once both count.
 */
export async function addCharge(db: DataSource, id: number, amount: number, requestId: string, now = Date.now()): Promise<void> {
  await db
    .getRepository(TaskEntity)
    .createQueryBuilder()
    .update()
    .set({ quota: () => 'quota + :amount', charge_requests: () => "charge_requests || ' ' || :requestId", updated_at: now })
    .setParameters({ amount, requestId })
    .where('id = :id', { id })
    .execute();
}

/** The request ids of a task's charges. */
export const chargeRequestsOf = (task: Pick<TaskEntity, 'charge_requests'>): string[] => task.charge_requests.split(' ').filter(Boolean);

/** Failed tasks whose charge has not gone back yet (the poller refunds them), oldest first. */
export async function unrefunded(db: DataSource, limit: number): Promise<TaskEntity[]> {
  return db
    .getRepository(TaskEntity)
    .createQueryBuilder('task')
    .where('task.status = :status', { status: TaskStatus.Failure })
    .andWhere('task.refunded = :refunded', { refunded: false })
    .andWhere('task.quota > 0')
    .orderBy('task.id', 'ASC')
    .limit(limit)
    .getMany();
}

/** Up to `limit` unfinished tasks of a platform for the poller, oldest first. */
export async function unfinished(db: DataSource, platform: string, limit: number): Promise<TaskEntity[]> {
  return db.getRepository(TaskEntity).find({ where: { platform, status: In([...UNFINISHED_STATUSES]) }, order: { id: 'ASC' }, take: limit });
}

/** Changes a task (`unfinished`: only while it is); false when there is no such task (or it finished). */
export async function update(db: DataSource, id: number, fields: TaskChanges, now = Date.now(), only: { unfinished?: boolean } = {}): Promise<boolean> {
  const where = only.unfinished ? { id, status: In([...UNFINISHED_STATUSES]) } : { id };
  const result = await db.getRepository(TaskEntity).update(where, storable({ ...fields, updated_at: now }));
  return (result.affected ?? 0) > 0;
}

/**
 * Marks a task refunded, after its refund event was published; true only for the one caller that
 * changed it. The money itself goes back once whoever publishes: billing keys the refund by the
 * task (`task-refund-<id>`), so a failure seen twice, by two replicas, or after a restart refunds once.
 */
export async function claimRefund(db: DataSource, id: number, now = Date.now()): Promise<boolean> {
  const result = await db.getRepository(TaskEntity).update({ id, refunded: false }, { refunded: true, updated_at: now });
  return (result.affected ?? 0) > 0;
}

/**
 * A drawing list row. Users never see the channel (`self`): it names the operator's upstreams.
 * `imageUrl`: the address to show instead of the upstream's (this server's proxy).
 */
export function toDrawingTask(row: TaskEntity, self = false, imageUrl = row.image_url): DrawingTask {
  return {
    id: row.id,
    submit_time: row.submit_time,
    start_time: row.start_time,
    finish_time: row.finish_time,
    channel_id: self ? 0 : row.channel_id,
    action: row.action,
    mj_id: row.task_id,
    code: row.code,
    status: row.status,
    progress: row.progress,
    image_url: imageUrl,
    prompt: row.prompt,
    prompt_en: row.prompt_en,
    description: row.description,
    buttons: row.buttons,
    fail_reason: row.fail_reason,
  };
}

/** A task list row; `self` as for drawings. */
export function toAsyncTask(row: TaskEntity, self = false): AsyncTask {
  return {
    id: row.id,
    submit_time: row.submit_time,
    start_time: row.start_time,
    finish_time: row.finish_time,
    progress: row.progress,
    channel_id: self ? 0 : row.channel_id,
    platform: row.platform,
    action: row.action,
    task_id: row.task_id,
    status: row.status,
    fail_reason: row.fail_reason,
    data: row.data,
  };
}

export function toPage<T>(items: T[], total: number, page: { p: number; page_size: number }): Page<T> {
  return { items, total, page: page.p, page_size: page.page_size };
}
