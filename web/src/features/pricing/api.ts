import type { PricingRow } from '@aigw/contracts';
import { api } from '../../api/api';

export interface Pricing {
  models: PricingRow[];
  /** Ratios of the groups the caller may use (guests: the default group). */
  groupRatio: Record<string, number>;
  /** Those groups with their description. */
  usableGroups: Record<string, string>;
}

export const pricingApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/pricing: the rows are `data`; the group maps sit beside it in the envelope. */
    getPricing: build.query<Pricing, void>({
      query: () => '/pricing',
      transformResponse: (data: PricingRow[], meta) => ({
        models: data ?? [],
        groupRatio: (meta?.envelope.group_ratio as Record<string, number> | undefined) ?? {},
        usableGroups: (meta?.envelope.usable_group as Record<string, string> | undefined) ?? {},
      }),
      providesTags: ['Pricing'],
    }),
  }),
});

export const { useGetPricingQuery } = pricingApi;
