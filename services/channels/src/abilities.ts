import type { DataSource, EntityManager } from 'typeorm';
import { ChannelStatus } from '@aigw/contracts';
import { AbilityEntity, ChannelEntity } from './entities/index.js';
import { splitList } from './domain/channel-fields.js';

/**
 * The abilities index (docs/compatibility.md section 2.2): one row per group x model of a channel,
 * carrying what routing sorts by. Always rewritten inside the transaction that changed the channel,
 * so the index can never disagree with the channels table (a failed change leaves both as they
 * were).
 */

/** Rows per INSERT: 7 parameters each stays far below either database's parameter limit. */
const INSERT_CHUNK = 100;

export async function replaceAbilities(manager: EntityManager, channel: ChannelEntity): Promise<void> {
  await manager.delete(AbilityEntity, { channel_id: channel.id });
  const enabled = channel.status === ChannelStatus.Enabled;
  const rows: AbilityEntity[] = [];
  for (const group of splitList(channel.group)) {
    for (const model of splitList(channel.models)) {
      rows.push({ group, model, channel_id: channel.id, enabled, priority: channel.priority, weight: channel.weight, tag: channel.tag });
    }
  }
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) await manager.insert(AbilityEntity, rows.slice(start, start + INSERT_CHUNK));
}

/** Rebuilds the whole index from the channels (POST /api/channel/fix); returns the channels processed. */
export async function rebuildAllAbilities(db: DataSource): Promise<number> {
  return db.transaction(async (manager) => {
    await manager.createQueryBuilder().delete().from(AbilityEntity).execute();
    const channels = await manager.find(ChannelEntity, { order: { id: 'ASC' } });
    for (const channel of channels) await replaceAbilities(manager, channel);
    return channels.length;
  });
}

/** Every model an enabled channel offers, with the groups it is offered in. */
export async function enabledModelGroups(db: DataSource): Promise<Array<{ model: string; groups: string[] }>> {
  const rows = await db
    .getRepository(AbilityEntity)
    .createQueryBuilder('ability')
    .select('ability.model', 'model')
    .addSelect('ability.group', 'group')
    .distinct(true)
    .where('ability.enabled = :enabled', { enabled: true })
    .orderBy('ability.model')
    .addOrderBy('ability.group')
    .getRawMany<{ model: string; group: string }>();
  const groups = new Map<string, string[]>();
  for (const row of rows) groups.set(row.model, [...(groups.get(row.model) ?? []), row.group]);
  return [...groups].map(([model, list]) => ({ model, groups: list }));
}

/** Models an enabled channel offers in `group` (or in any group when omitted), sorted. */
export async function enabledModels(db: DataSource, group?: string): Promise<string[]> {
  const builder = db
    .getRepository(AbilityEntity)
    .createQueryBuilder('ability')
    .select('ability.model', 'model')
    .distinct(true)
    .where('ability.enabled = :enabled', { enabled: true })
    .orderBy('ability.model');
  if (group !== undefined) builder.andWhere('ability.group = :group', { group });
  return (await builder.getRawMany<{ model: string }>()).map((row) => row.model);
}
