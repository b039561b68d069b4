import type { Page, TokenView } from '@aigw/contracts';
import { api } from '../../api/api';

/** Groups the user may pick, with their description and price ratio. */
export type UsableGroups = Record<string, { desc: string; ratio: number }>;

export const playgroundApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** Whether the user has an enabled token (the spec's entry rule): the first 100 tokens. */
    hasEnabledToken: build.query<boolean, void>({
      query: () => ({ url: '/token/', params: { p: 0, size: 100 } }),
      transformResponse: (data: Page<TokenView>) => data.items.some((token) => token.status === 1),
      providesTags: ['Token'],
    }),
    selfGroups: build.query<UsableGroups, void>({ query: () => '/user/self/groups', providesTags: ['Group'] }),
    selfModels: build.query<string[], void>({ query: () => '/user/models', providesTags: ['Model'] }),
  }),
});

export const { useHasEnabledTokenQuery, useSelfGroupsQuery, useSelfModelsQuery } = playgroundApi;
