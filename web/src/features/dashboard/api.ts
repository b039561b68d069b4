import type { DataQuery, UsageRow } from '@aigw/contracts';
import { api } from '../../api/api';

/** The dashboard's query: always a time range; `username` is admin only (the self route ignores it, so it is not sent there). */
export type UsageDataArgs = Required<Pick<DataQuery, 'start_timestamp' | 'end_timestamp'>> &
  Partial<Pick<DataQuery, 'username'>> & {
    /** Admins read /api/data/ (everyone, or one username), users /api/data/self. */
    admin: boolean;
  };

export const dashboardApi = api.injectEndpoints({
  endpoints: (build) => ({
    usageData: build.query<UsageRow[], UsageDataArgs>({
      query: ({ admin, username, ...range }) => ({
        url: admin ? '/data/' : '/data/self',
        params: admin ? { ...range, username: username ?? '' } : range,
      }),
      providesTags: ['Data'],
    }),
  }),
});

export const { useUsageDataQuery } = dashboardApi;
