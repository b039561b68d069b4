import type {
  ChannelBalance,
  ChannelKeyList,
  MultiKeyManageBody,
  ChannelRow,
  ChannelSearchQuery,
  ChannelTestResult,
  ChannelView,
  CopiedChannel,
  CreateChannelBody,
  CreatedChannels,
  FetchModelsBody,
  KnownModel,
  Page,
  TagEditBody,
  TagRow,
  UpdateChannelBody,
} from '@aigw/contracts';
import { api } from '../../api/api';
import type { RootState } from '../../app/store';
import { storageKeys, write } from '../../lib/storage';

export const isTagRow = (row: ChannelRow): row is TagRow => 'children' in row && !('id' in row);

/** Channel operations by id show their own failures (a 404 means the row is stale). */
const silent = { silent: true } as const;

/** Changes every cached table page that shows channel `id` (a row or a tag's child); returns the undos. */
function patchChannelRows(dispatch: (action: unknown) => unknown, getState: () => unknown, id: number, change: (row: ChannelView) => void): Array<() => void> {
  const undos: Array<() => void> = [];
  for (const args of channelsApi.util.selectCachedArgsForQuery(getState() as RootState, 'channels')) {
    const patch = dispatch(
      channelsApi.util.updateQueryData('channels', args, (draft) => {
        for (const row of draft.items) {
          const rows = isTagRow(row) ? row.children : [row];
          for (const channel of rows) if (channel.id === id) change(channel);
        }
      }),
    ) as { undo(): void };
    undos.push(() => patch.undo());
  }
  return undos;
}

export const channelsApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** The table's query: the list, or the search when any filter is set. */
    channels: build.query<Page<ChannelRow>, ChannelSearchQuery>({
      query: ({ keyword, group, model, ...page }) => {
        const params = { ...page, id_sort: String(page.id_sort), tag_mode: String(page.tag_mode) };
        if (keyword.trim() || group || model.trim())
          return { url: '/channel/search', params: { ...params, keyword: keyword.trim(), group, model: model.trim() } };
        return { url: '/channel/', params };
      },
      providesTags: ['Channel'],
    }),
    channel: build.query<ChannelView, number>({
      query: (id) => `/channel/${id}`,
      extraOptions: silent,
      providesTags: ['Channel'],
    }),
    createChannel: build.mutation<CreatedChannels, Omit<CreateChannelBody, 'status'> & { status?: 1 | 2 }>({
      query: (body) => ({ url: '/channel/', method: 'POST', body }),
      invalidatesTags: ['Channel', 'Model'],
    }),
    updateChannel: build.mutation<ChannelView, UpdateChannelBody>({
      query: (body) => ({ url: '/channel/', method: 'PUT', body }),
      extraOptions: silent,
      invalidatesTags: (_result, error) => (error ? [] : ['Channel', 'Model']),
    }),
    /** Priority or weight from the table: the row already shows the new value. */
    updateChannelField: build.mutation<ChannelView, { id: number; priority: number } | { id: number; weight: number }>({
      query: (body) => ({ url: '/channel/', method: 'PUT', body }),
      extraOptions: silent,
      async onQueryStarted(body, { dispatch, getState, queryFulfilled }) {
        const undos = patchChannelRows(dispatch, getState, body.id, (row) => Object.assign(row, body));
        await queryFulfilled.catch(() => undos.forEach((undo) => undo()));
      },
    }),
    /** Enable (1) or disable (2): optimistic, undone when the server refuses. */
    setChannelStatus: build.mutation<ChannelView, { id: number; status: 1 | 2 }>({
      query: (body) => ({ url: '/channel/', method: 'PUT', body }),
      extraOptions: silent,
      async onQueryStarted({ id, status }, { dispatch, getState, queryFulfilled }) {
        const undos = patchChannelRows(dispatch, getState, id, (row) => {
          row.status = status;
        });
        await queryFulfilled.catch(() => undos.forEach((undo) => undo()));
      },
    }),
    deleteChannel: build.mutation<null, number>({
      query: (id) => ({ url: `/channel/${id}/`, method: 'DELETE' }),
      extraOptions: silent,
      invalidatesTags: (_result, error) => (error ? [] : ['Channel']),
    }),
    copyChannel: build.mutation<CopiedChannel, number>({
      // The server's default suffix names the copy; reset_balance zeroes its balance and used quota.
      query: (id) => ({ url: `/channel/copy/${id}`, method: 'POST', params: { reset_balance: 'true' } }),
      extraOptions: silent,
      invalidatesTags: (_result, error) => (error ? [] : ['Channel']),
    }),
    /**
     * Tests one channel (with a model, or its test model; a channel with many keys with `key_index`, or its first live key);
     * `time` is in seconds. POST: it records the result (rule R12).
     */
    testChannel: build.mutation<ChannelTestResult, { id: number; model?: string; keyIndex?: number }>({
      query: ({ id, model, keyIndex }) => ({
        url: `/channel/test/${id}`,
        method: 'POST',
        params: { ...(model ? { model } : {}), ...(keyIndex !== undefined ? { key_index: keyIndex } : {}) },
      }),
      invalidatesTags: (_result, _error, { keyIndex }) => (keyIndex !== undefined ? ['ChannelKeys'] : []),
      extraOptions: silent,
      async onQueryStarted({ id }, { dispatch, getState, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          patchChannelRows(dispatch, getState, id, (row) => {
            row.response_time = Math.round(data.time * 1000);
            row.test_time = Math.floor(Date.now() / 1000);
          });
        } catch {
          // A failed test may have disabled the channel: show the server's state.
          dispatch(channelsApi.util.invalidateTags(['Channel']));
        }
      },
    }),
    testAllChannels: build.mutation<null, void>({ query: () => ({ url: '/channel/test', method: 'POST' }) }),
    updateBalance: build.mutation<ChannelBalance, number>({
      query: (id) => ({ url: `/channel/update_balance/${id}/`, method: 'POST' }),
      extraOptions: silent,
      async onQueryStarted(id, { dispatch, getState, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: null }));
        if (!data) return;
        patchChannelRows(dispatch, getState, id, (row) => {
          row.balance = data.balance;
          row.balance_updated_time = Math.floor(Date.now() / 1000);
        });
      },
    }),
    updateAllBalances: build.mutation<null, void>({ query: () => ({ url: '/channel/update_balance', method: 'POST' }) }),
    deleteDisabledChannels: build.mutation<number, void>({
      query: () => ({ url: '/channel/disabled', method: 'DELETE' }),
      invalidatesTags: ['Channel'],
    }),
    deleteChannels: build.mutation<number, number[]>({
      query: (ids) => ({ url: '/channel/batch', method: 'POST', body: { ids } }),
      invalidatesTags: ['Channel'],
    }),
    fixChannels: build.mutation<number, void>({
      query: () => ({ url: '/channel/fix', method: 'POST' }),
      invalidatesTags: ['Channel'],
    }),
    setTag: build.mutation<number, { ids: number[]; tag: string }>({
      query: (body) => ({ url: '/channel/batch/tag', method: 'POST', body }),
      invalidatesTags: ['Channel'],
    }),
    setTagStatus: build.mutation<number, { tag: string; enabled: boolean }>({
      query: ({ tag, enabled }) => ({ url: `/channel/tag/${enabled ? 'enabled' : 'disabled'}`, method: 'POST', body: { tag } }),
      invalidatesTags: ['Channel'],
    }),
    editTag: build.mutation<number, TagEditBody>({
      query: (body) => ({ url: '/channel/tag', method: 'PUT', body }),
      invalidatesTags: ['Channel', 'Model'],
    }),
    /** The masked keys of a channel with many keys and their states (the established product's POST route). */
    channelKeys: build.query<ChannelKeyList, number>({
      query: (id) => ({ url: '/channel/multi_key/manage', method: 'POST', body: { channel_id: id, action: 'get_key_status' } }),
      extraOptions: silent,
      providesTags: ['ChannelKeys'],
    }),
    /** Turns keys on or off, or drops the disabled ones; answers the list as it is afterwards. */
    manageChannelKeys: build.mutation<ChannelKeyList, Omit<MultiKeyManageBody, 'action'> & { action: Exclude<MultiKeyManageBody['action'], 'get_key_status'> }>(
      {
        query: (body) => ({ url: '/channel/multi_key/manage', method: 'POST', body }),
        extraOptions: silent,
        invalidatesTags: (_result, error) => (error ? [] : ['Channel', 'ChannelKeys']),
      },
    ),
    /** Every model the editor offers, with the channel types that offer it. */
    knownModels: build.query<KnownModel[], void>({ query: () => '/channel/models', providesTags: ['Model'] }),
    /** Channel type -> models of its enabled channels; kept in browser storage for the next editor. */
    modelsByType: build.query<Record<string, string[]>, void>({
      query: () => '/models',
      providesTags: ['Model'],
      async onQueryStarted(_arg, { queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: null }));
        if (data) write(storageKeys.models, data);
      },
    }),
    fetchUpstreamModels: build.mutation<string[], { id: number } | FetchModelsBody>({
      query: (arg) => ('id' in arg ? `/channel/fetch_models/${arg.id}` : { url: '/channel/fetch_models', method: 'POST', body: arg }),
      extraOptions: silent,
    }),
  }),
});

export const {
  useChannelsQuery,
  useChannelQuery,
  useCreateChannelMutation,
  useUpdateChannelMutation,
  useUpdateChannelFieldMutation,
  useSetChannelStatusMutation,
  useDeleteChannelMutation,
  useCopyChannelMutation,
  useTestChannelMutation,
  useTestAllChannelsMutation,
  useUpdateBalanceMutation,
  useUpdateAllBalancesMutation,
  useDeleteDisabledChannelsMutation,
  useDeleteChannelsMutation,
  useFixChannelsMutation,
  useSetTagMutation,
  useSetTagStatusMutation,
  useEditTagMutation,
  useKnownModelsQuery,
  useModelsByTypeQuery,
  useFetchUpstreamModelsMutation,
  useChannelKeysQuery,
  useManageChannelKeysMutation,
} = channelsApi;
