import { completionRatio, modelPricing, type PricingRow } from '@aigw/contracts';
import { BusRequestError, requestTyped } from '@aigw/platform';
import type { BillingContext } from './context.js';

interface OfferedModel {
  model: string;
  groups: string[];
}

/** The channels' answer is reused this long: the page is public, each view must not cost a query in channels. */
const offeredCacheMs = 5_000;
const offeredTimeoutMs = 2_000;

/** The pricing page's figures for one caller. */
export interface PricingTable {
  /** The models channels offer that have a price (per call) or ratios, by name. */
  rows: PricingRow[];
  /** Ratios of the groups the caller may use. */
  groupRatio: Record<string, number>;
  /** Those groups with their description. */
  usableGroups: Record<string, string>;
}

export interface Pricing {
  /** The table for a signed-in caller of `group`, or for a guest (null). */
  tableFor(group: string | null): Promise<PricingTable>;
}

/**
 * The pricing page: the models channels offer, each with its price (per call) or ratios, plus the
 * group ratios the caller may use: signed-in users their usable groups (the configured ones and
 * their own), guests the default group. Models without a price are left out: the relay refuses
 * them (unless self-use mode, where they show at the self-use ratio).
 */
export function createPricing(context: Pick<BillingContext, 'bus' | 'options' | 'logger'>): Pricing {
  const { bus, options, logger } = context;
  let cached: { at: number; models: OfferedModel[] } | undefined;

  async function offeredModels(): Promise<OfferedModel[]> {
    if (cached && Date.now() - cached.at < offeredCacheMs) return cached.models;
    try {
      const { models } = await requestTyped(bus, 'channels.model.enabled', {}, { timeoutMs: offeredTimeoutMs });
      cached = { at: Date.now(), models };
      return models;
    } catch (error) {
      if (!(error instanceof BusRequestError) || error.reason === 'remote-error') throw error;
      // Channels is not there (yet): show every priced model in every group instead of nothing.
      logger.debug({ reason: error.reason }, 'pricing: channels did not answer; listing every priced model');
      const groups = Object.keys(options.get('GroupRatio'));
      const names = new Set([...Object.keys(options.get('ModelPrice')), ...Object.keys(options.get('ModelRatio'))]);
      return [...names].filter((name) => !name.endsWith('*')).map((model) => ({ model, groups }));
    }
  }

  return {
    async tableFor(group) {
      const all = options.all();
      const groupsByModel = new Map<string, Set<string>>();
      for (const { model, groups } of await offeredModels()) {
        const known = groupsByModel.get(model) ?? new Set<string>();
        for (const name of groups) known.add(name);
        groupsByModel.set(model, known);
      }

      const rows: PricingRow[] = [];
      for (const [model, groups] of [...groupsByModel].sort(([a], [b]) => a.localeCompare(b))) {
        const pricing = modelPricing(all, model, all.SelfUseModeEnabled);
        if (!pricing) continue;
        const enable_groups = [...groups].sort();
        rows.push(
          pricing.kind === 'price'
            ? { model_name: model, quota_type: 1, model_ratio: 0, model_price: pricing.modelPrice, completion_ratio: 0, enable_groups }
            : {
                model_name: model,
                quota_type: 0,
                model_ratio: pricing.modelRatio,
                model_price: 0,
                completion_ratio: completionRatio(all.CompletionRatio, model),
                enable_groups,
              },
        );
      }

      const usableGroups: Record<string, string> = group !== null ? { ...all.UserUsableGroups } : { default: all.UserUsableGroups.default ?? 'default group' };
      if (group !== null && !Object.hasOwn(usableGroups, group)) usableGroups[group] = 'your group';
      const groupRatio = Object.fromEntries(Object.entries(all.GroupRatio).filter(([name]) => Object.hasOwn(usableGroups, name)));
      return { rows, groupRatio, usableGroups };
    },
  };
}
