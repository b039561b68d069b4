import type { RoutingChannel } from '@aigw/contracts';
import { ChannelStatus } from '@aigw/contracts';

/**
 * The relay's local routing table: every channel's routing row, and an index of the enabled
 * ones by group and model, rebuilt when a row changes. Lookups on the hot path are two Map reads.
 */
export class RoutingIndex {
  private readonly channels = new Map<number, RoutingChannel>();
  private byGroupModel = new Map<string, RoutingChannel[]>();
  private dirty = false;

  /** Applies a row unless an equal or newer version is already known. Returns whether it changed. */
  upsert(channel: RoutingChannel): boolean {
    const known = this.channels.get(channel.id);
    if (known && known.version >= channel.version) return false;
    this.channels.set(channel.id, channel);
    this.dirty = true;
    return true;
  }

  remove(id: number): boolean {
    const removed = this.channels.delete(id);
    if (removed) this.dirty = true;
    return removed;
  }

  get(id: number): RoutingChannel | undefined {
    return this.channels.get(id);
  }

  /** Enabled channels serving `model` for `group`. */
  candidates(group: string, model: string): readonly RoutingChannel[] {
    if (this.dirty) this.rebuild();
    return this.byGroupModel.get(key(group, model)) ?? [];
  }

  /** Models an enabled channel serves for `group`, sorted. */
  models(group: string): string[] {
    const models = new Set<string>();
    for (const channel of this.channels.values()) {
      if (channel.status === ChannelStatus.Enabled && channel.groups.includes(group)) for (const model of channel.models) models.add(model);
    }
    return [...models].sort();
  }

  private rebuild(): void {
    const index = new Map<string, RoutingChannel[]>();
    for (const channel of this.channels.values()) {
      if (channel.status !== ChannelStatus.Enabled) continue;
      for (const group of channel.groups) {
        for (const model of channel.models) {
          const entry = key(group, model);
          const list = index.get(entry);
          if (list) list.push(channel);
          else index.set(entry, [channel]);
        }
      }
    }
    this.byGroupModel = index;
    this.dirty = false;
  }
}

const key = (group: string, model: string) => `${group}\u0000${model}`;
