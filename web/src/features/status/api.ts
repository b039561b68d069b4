import type { Status } from '@aigw/contracts';
import { api } from '../../api/api';

export const statusApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/status: public site configuration, cached in browser storage. */
    getStatus: build.query<Status, void>({
      query: () => '/status',
      extraOptions: { silent: true },
      providesTags: ['Status'],
    }),
  }),
});

export const { useGetStatusQuery } = statusApi;
