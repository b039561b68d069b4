import type { AuditTarget, AuditValues } from '@aigw/contracts';
import { publishAudit, type AuditEntry, type AuditSource } from '@aigw/platform';
import type { ChannelsContext } from './context.js';
import type { ChannelEntity } from './entities/index.js';

/**
 * Channels' audit records (issue 22, item 13): every admin change of a channel, committed, is
 * published on `channels.audit.recorded` with the admin and the client IP.
 */

/** Who changed a channel: the console's caller and where from (`auditSourceOf(request)`). */
export type ChannelActor = AuditSource;

/**
 * A channel as its records show it: what an admin sets, not the counters traffic moves. The key
 * is given as its hash, which the record masks (`***`): a replaced key shows as changed, and
 * neither the key nor its hash is ever in a record.
 */
export function auditedChannel(row: ChannelEntity): AuditValues {
  return {
    name: row.name,
    type: row.type,
    status: row.status,
    group: row.group,
    models: row.models,
    base_url: row.base_url,
    key: row.key_hash,
    other: row.other,
    model_mapping: row.model_mapping,
    status_code_mapping: row.status_code_mapping,
    param_override: row.param_override,
    setting: row.setting,
    test_model: row.test_model,
    auto_ban: row.auto_ban,
    tag: row.tag,
    priority: row.priority,
    weight: row.weight,
    openai_organization: row.openai_organization,
    allow_private_network: row.allow_private_network === true,
    // The key states of a channel with many keys (which are off, and why): no key material.
    channel_info: row.channel_info,
    rate_limits: row.rate_limits,
  };
}

export function channelTarget(row: Pick<ChannelEntity, 'id' | 'name'>): AuditTarget {
  return { type: 'channel', id: String(row.id), label: row.name };
}

/** Publishes the records (after the change committed); nothing without an actor (channels' own changes). */
export async function publishChannelAudit(
  context: Pick<ChannelsContext, 'bus'>,
  actor: ChannelActor | null | undefined,
  ...entries: AuditEntry[]
): Promise<void> {
  if (actor) await publishAudit(context.bus, 'channels', actor, ...entries);
}
