import { api } from '../../api/api';
import type { UsageRow } from './buckets';

export interface UsageDataArgs {
  /** Admins read /api/data/ (everyone, or one username), users /api/data/self. */
  admin: boolean;
  start_timestamp: number;
  end_timestamp: number;
  /** Admin only; the self route ignores it, so it is not sent there. */
  username?: string;
}

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
