import type { OptionRow, UpdateOptionBody } from '@aigw/contracts';
import { api } from '../../api/api';

/** The settings (root only): GET answers every non-secret option as strings. */
export const optionsApi = api.injectEndpoints({
  endpoints: (build) => ({
    getOptions: build.query<Record<string, string>, void>({
      query: () => '/option/',
      transformResponse: (rows: OptionRow[]) => Object.fromEntries(rows.map((row) => [row.key, row.value])),
      providesTags: ['Option'],
    }),
    /** One call per changed setting; the caller reports the outcome of the batch. */
    updateOption: build.mutation<null, UpdateOptionBody>({
      query: (body) => ({ url: '/option/', method: 'PUT', body }),
      extraOptions: { silent: true },
    }),
    resetModelRatio: build.mutation<null, void>({
      query: () => ({ url: '/option/rest_model_ratio', method: 'POST' }),
      invalidatesTags: ['Option', 'Pricing'],
    }),
    /** DELETE /api/log/?target_timestamp=: clears logs created before the time; answers the count. */
    clearLogs: build.mutation<number, { targetTimestamp: number }>({
      query: ({ targetTimestamp }) => ({ url: '/log/', method: 'DELETE', params: { target_timestamp: targetTimestamp } }),
      invalidatesTags: ['Log'],
    }),
  }),
});

export const { useGetOptionsQuery, useUpdateOptionMutation, useResetModelRatioMutation, useClearLogsMutation } = optionsApi;
