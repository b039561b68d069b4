import { pricingAnswerSchema, type PricingAnswer, type PricingRow } from '@aigw/contracts';
import { api } from '../../api/api';

/** The pricing page's data: the rows, and the groups the caller may use beside them. */
export interface Pricing {
  models: PricingRow[];
  groupRatio: PricingAnswer['group_ratio'];
  usableGroups: PricingAnswer['usable_group'];
}

/** The group maps beside `data` in the envelope, read leniently: missing ones are empty. */
const pricingGroups = pricingAnswerSchema.pick({ group_ratio: true, usable_group: true }).partial();

export const pricingApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/pricing: the rows are `data`; the group maps sit beside it in the envelope. */
    getPricing: build.query<Pricing, void>({
      query: () => '/pricing',
      transformResponse: (data: PricingAnswer['data'], meta) => {
        const groups = pricingGroups.safeParse(meta?.envelope).data;
        return { models: data ?? [], groupRatio: groups?.group_ratio ?? {}, usableGroups: groups?.usable_group ?? {} };
      },
      providesTags: ['Pricing'],
    }),
  }),
});

export const { useGetPricingQuery } = pricingApi;
