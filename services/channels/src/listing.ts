import { Brackets, type SelectQueryBuilder } from 'typeorm';
import { ChannelStatus, type ChannelRow, type ChannelView, type Page, type TagRow } from '@aigw/contracts';
import { escapeLike } from '@aigw/platform';
import type { ChannelsContext } from './context.js';
import { ChannelEntity } from './entities/index.js';
import { splitList, toChannelView } from './domain/channel-fields.js';
import { hashKey } from './domain/channel-key.js';

/**
 * The channel table: pages of channels, or in tag mode pages of rows where every tag is one
 * row (aggregating its channels, listed as children) and untagged channels stay rows of their
 * own. Every filter is a bound parameter (rule R6).
 */

export interface ChannelQuery {
  p: number;
  page_size: number;
  /** Order by id (newest first) instead of priority (highest first, then newest). */
  id_sort: boolean;
  tag_mode: boolean;
  /** An id, part of a name, or a whole key (compared by hash). */
  keyword?: string;
  /** A group the channel serves (exact). */
  group?: string;
  /** Part of a model name the channel lists. */
  model?: string;
}

const MAX_ID = 2_147_483_647;

function applyFilter(builder: SelectQueryBuilder<ChannelEntity>, query: ChannelQuery): SelectQueryBuilder<ChannelEntity> {
  const keyword = query.keyword?.trim();
  if (keyword) {
    builder.andWhere(
      new Brackets((where) => {
        if (/^\d{1,10}$/.test(keyword) && Number(keyword) <= MAX_ID) where.orWhere('channel.id = :keywordId', { keywordId: Number(keyword) });
        where.orWhere(`LOWER(channel.name) LIKE :keywordLike ESCAPE '\\'`, { keywordLike: `%${escapeLike(keyword.toLowerCase())}%` });
        where.orWhere('channel.key_hash = :keywordHash', { keywordHash: hashKey(keyword) });
      }),
    );
  }
  const group = query.group?.trim();
  // Groups are stored trimmed and comma-joined, so wrapping both in commas matches whole names only.
  if (group) builder.andWhere(`(',' || channel.group || ',') LIKE :groupLike ESCAPE '\\'`, { groupLike: `%,${escapeLike(group)},%` });
  const model = query.model?.trim();
  if (model) builder.andWhere(`LOWER(channel.models) LIKE :modelLike ESCAPE '\\'`, { modelLike: `%${escapeLike(model.toLowerCase())}%` });
  return builder;
}

function ordered<T extends SelectQueryBuilder<ChannelEntity>>(builder: T, query: ChannelQuery, aggregate = false): T {
  const column = (name: string) => (aggregate ? `MAX(channel.${name})` : `channel.${name}`);
  if (!query.id_sort) builder.addOrderBy(column('priority'), 'DESC');
  builder.addOrderBy(column('id'), 'DESC');
  return builder;
}

export async function listChannels(context: ChannelsContext, query: ChannelQuery): Promise<Page<ChannelRow>> {
  return query.tag_mode ? listByTag(context, query) : listPlain(context, query);
}

async function listPlain(context: ChannelsContext, query: ChannelQuery): Promise<Page<ChannelView>> {
  const builder = ordered(applyFilter(context.db.getRepository(ChannelEntity).createQueryBuilder('channel'), query), query)
    .offset((query.p - 1) * query.page_size)
    .limit(query.page_size);
  const [rows, total] = await builder.getManyAndCount();
  return { items: rows.map(toChannelView), total, page: query.p, page_size: query.page_size };
}

async function listByTag(context: ChannelsContext, query: ChannelQuery): Promise<Page<ChannelRow>> {
  const repository = context.db.getRepository(ChannelEntity);
  // One group per tag, and one per untagged channel.
  const groupKey = `CASE WHEN channel.tag = '' THEN channel.id ELSE 0 END`;
  const keys = await ordered(applyFilter(repository.createQueryBuilder('channel'), query), query, true)
    .select('channel.tag', 'tag')
    .addSelect(groupKey, 'channel_id')
    .groupBy('channel.tag')
    .addGroupBy(groupKey)
    .offset((query.p - 1) * query.page_size)
    .limit(query.page_size)
    .getRawMany<{ tag: string; channel_id: number | string }>();
  const counted = await applyFilter(repository.createQueryBuilder('channel'), query)
    .select(`SUM(CASE WHEN channel.tag = '' THEN 1 ELSE 0 END) + COUNT(DISTINCT NULLIF(channel.tag, ''))`, 'total')
    .getRawOne<{ total: number | string | null }>();
  const total = Number(counted?.total ?? 0);

  const tags = keys.filter((key) => key.tag !== '').map((key) => key.tag);
  const ids = keys.filter((key) => key.tag === '').map((key) => Number(key.channel_id));
  const members = ordered(applyFilter(repository.createQueryBuilder('channel'), query), query).andWhere(
    new Brackets((where) => {
      where.where('1 = 0');
      if (tags.length) where.orWhere('channel.tag IN (:...tags)', { tags });
      if (ids.length) where.orWhere('channel.id IN (:...ids)', { ids });
    }),
  );
  const rows = keys.length ? await members.getMany() : [];
  const byId = new Map(rows.map((row) => [row.id, row]));
  const items = keys.map((key): ChannelRow =>
    key.tag === ''
      ? toChannelView(byId.get(Number(key.channel_id))!)
      : tagRow(
          key.tag,
          rows.filter((row) => row.tag === key.tag),
        ),
  );
  return { items, total, page: query.p, page_size: query.page_size };
}

function tagRow(tag: string, channels: ChannelEntity[]): TagRow {
  const union = (lists: string[]) => [...new Set(lists.flatMap(splitList))].join(',');
  const types = new Set(channels.map((channel) => channel.type));
  const enabled = channels.filter((channel) => channel.status === ChannelStatus.Enabled).length;
  const tested = channels.filter((channel) => channel.response_time > 0);
  return {
    tag,
    name: tag,
    type: types.size === 1 ? [...types][0]! : 0,
    status: enabled > 0 ? ChannelStatus.Enabled : ChannelStatus.ManuallyDisabled,
    channel_count: channels.length,
    enabled_count: enabled,
    group: union(channels.map((channel) => channel.group)),
    models: union(channels.map((channel) => channel.models)),
    priority: Math.max(...channels.map((channel) => channel.priority)),
    weight: Math.max(...channels.map((channel) => channel.weight)),
    used_quota: channels.reduce((sum, channel) => sum + channel.used_quota, 0),
    balance: channels.reduce((sum, channel) => sum + channel.balance, 0),
    response_time: tested.length ? Math.round(tested.reduce((sum, channel) => sum + channel.response_time, 0) / tested.length) : 0,
    children: channels.map(toChannelView),
  };
}
