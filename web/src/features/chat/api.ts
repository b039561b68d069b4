import type { Page, TokenView } from '@aigw/contracts';
import { api } from '../../api/api';

export const chatApi = api.injectEndpoints({
  endpoints: (build) => ({
    /**
     * The full key of the user's first enabled token (of the first 100, as the spec says), or
     * null when none is enabled: chat clients get it filled into their link.
     */
    enabledTokenKey: build.query<string | null, void>({
      async queryFn(_arg, _api, _extra, baseQuery) {
        const list = await baseQuery({ url: '/token/', params: { p: 0, size: 100 } });
        if (list.error) return { error: list.error };
        const token = (list.data as Page<TokenView>).items.find((item) => item.status === 1);
        if (!token) return { data: null };
        const revealed = await baseQuery({ url: `/token/${token.id}/key`, method: 'POST' });
        if (revealed.error) return { error: revealed.error };
        return { data: (revealed.data as { key: string }).key };
      },
      providesTags: ['Token'],
    }),
  }),
});

export const { useEnabledTokenKeyQuery } = chatApi;
