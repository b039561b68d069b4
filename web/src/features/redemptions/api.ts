import type { CreateRedemptionBody, Page, RedemptionView } from '@aigw/contracts';
import { api } from '../../api/api';
import { setStatusOptimistically, type PatchPages } from '../../api/optimistic-status';

/** One page of codes; a keyword (id or name) switches to the search route. */
export interface RedemptionListArgs {
  /** 1-based. */
  page: number;
  pageSize: number;
  keyword: string;
}

export const redemptionsApi = api.injectEndpoints({
  endpoints: (build) => ({
    redemptions: build.query<Page<RedemptionView>, RedemptionListArgs>({
      query: ({ page, pageSize, keyword }) =>
        keyword
          ? { url: '/redemption/search', params: { keyword, p: page, page_size: pageSize } }
          : { url: '/redemption/', params: { p: page, page_size: pageSize } },
      providesTags: ['Redemption'],
    }),
    redemption: build.query<RedemptionView, number>({
      query: (id) => `/redemption/${id}`,
      providesTags: (_result, _error, id) => [{ type: 'Redemption', id }],
    }),
    /** Answers the generated codes. */
    createRedemptions: build.mutation<string[], CreateRedemptionBody>({
      query: (body) => ({ url: '/redemption/', method: 'POST', body }),
      invalidatesTags: ['Redemption'],
    }),
    /** The form sends both fields; the route takes either. */
    updateRedemption: build.mutation<RedemptionView, Pick<CreateRedemptionBody, 'name' | 'quota'> & { id: number }>({
      query: (body) => ({ url: '/redemption/', method: 'PUT', body }),
      invalidatesTags: ['Redemption'],
    }),
    /** Enable (1) or disable (2): the row changes at once and comes back on failure. */
    setRedemptionStatus: build.mutation<RedemptionView, { id: number; status: 1 | 2 }>({
      query: (body) => ({ url: '/redemption/', method: 'PUT', params: { status_only: 'true' }, body }),
      async onQueryStarted({ id, status }, { dispatch, getState, queryFulfilled }) {
        const patchPages: PatchPages<RedemptionView> = (recipe) =>
          redemptionsApi.util
            .selectCachedArgsForQuery(getState(), 'redemptions')
            .map((args) => dispatch(redemptionsApi.util.updateQueryData('redemptions', args, recipe)));
        await setStatusOptimistically(patchPages, id, status, queryFulfilled);
      },
    }),
    deleteRedemption: build.mutation<void, number>({
      query: (id) => ({ url: `/redemption/${id}/`, method: 'DELETE' }),
      invalidatesTags: ['Redemption'],
    }),
  }),
});

export const {
  useRedemptionsQuery,
  useRedemptionQuery,
  useCreateRedemptionsMutation,
  useUpdateRedemptionMutation,
  useSetRedemptionStatusMutation,
  useDeleteRedemptionMutation,
} = redemptionsApi;
