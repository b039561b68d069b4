import {
  PAGE_SIZE_MAX,
  TokenStatus,
  type CreateTokenBody,
  type Page,
  type RevealedKey,
  type TokenKey,
  type TokenView,
  type UpdateTokenBody,
} from '@aigw/contracts';
import { api } from '../../api/api';
import { setStatusOptimistically, type PatchPages } from '../../api/optimistic-status';

/** One page of the caller's tokens; a name or key term switches to the search route. */
export interface TokenListArgs {
  /** 1-based. */
  page: number;
  size: number;
  keyword: string;
  token: string;
}

/** A created token, its key whole (`sk-...`): the only answer besides the reveal route that carries it. */
export type CreatedToken = TokenView;

/** The most ids one batch reveal takes: one full page of tokens. */
export const REVEAL_BATCH_MAX = PAGE_SIZE_MAX;

export const tokensApi = api.injectEndpoints({
  endpoints: (build) => ({
    tokens: build.query<Page<TokenView>, TokenListArgs>({
      query: ({ page, size, keyword, token }) =>
        keyword || token ? { url: '/token/search', params: { keyword, token, p: page, size } } : { url: '/token/', params: { p: page, size } },
      providesTags: ['Token'],
    }),
    /**
     * The caller's first enabled token of the first 100 (the rule for the playground and the
     * chat links, docs/product.md section 7), or null when none is enabled.
     */
    enabledToken: build.query<TokenView | null, void>({
      query: () => ({ url: '/token/', params: { p: 0, size: 100 } }),
      transformResponse: (data: Page<TokenView>) => data.items.find((token) => token.status === TokenStatus.Enabled) ?? null,
      providesTags: ['Token'],
    }),
    token: build.query<TokenView, number>({
      query: (id) => `/token/${id}`,
      providesTags: (_result, _error, id) => [{ type: 'Token', id }],
    }),
    createToken: build.mutation<CreatedToken[], CreateTokenBody>({
      query: (body) => ({ url: '/token/', method: 'POST', body }),
      invalidatesTags: ['Token'],
    }),
    updateToken: build.mutation<TokenView, UpdateTokenBody>({
      query: (body) => ({ url: '/token/', method: 'PUT', body }),
      invalidatesTags: ['Token'],
    }),
    /** Enable (1) or disable (2); the page updates the row optimistically and undoes on failure. */
    setTokenStatus: build.mutation<TokenView, { id: number; status: 1 | 2 }>({
      query: (body) => ({ url: '/token/', method: 'PUT', params: { status_only: 'true' }, body }),
      async onQueryStarted({ id, status }, { dispatch, getState, queryFulfilled }) {
        const patchPages: PatchPages<TokenView> = (recipe) =>
          tokensApi.util.selectCachedArgsForQuery(getState(), 'tokens').map((args) => dispatch(tokensApi.util.updateQueryData('tokens', args, recipe)));
        await setStatusOptimistically(patchPages, id, status, queryFulfilled);
      },
    }),
    deleteToken: build.mutation<void, number>({
      query: (id) => ({ url: `/token/${id}/`, method: 'DELETE' }),
      invalidatesTags: ['Token'],
    }),
    /** The whole key (`sk-...`): lists only carry a masked one. */
    revealTokenKey: build.mutation<string, number>({
      query: (id) => ({ url: `/token/${id}/key`, method: 'POST' }),
      transformResponse: (data: TokenKey) => data.key,
    }),
    /** Several whole keys at once (at most REVEAL_BATCH_MAX), counted by the server as one reveal. */
    revealTokenKeys: build.mutation<RevealedKey[], number[]>({
      query: (ids) => ({ url: '/token/keys', method: 'POST', body: { ids } }),
    }),
  }),
});

export const {
  useTokensQuery,
  useEnabledTokenQuery,
  useTokenQuery,
  useCreateTokenMutation,
  useUpdateTokenMutation,
  useSetTokenStatusMutation,
  useDeleteTokenMutation,
  useRevealTokenKeyMutation,
  useRevealTokenKeysMutation,
} = tokensApi;
