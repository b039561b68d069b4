import type { LogQuery, LogStat, LogView, Page } from '@aigw/contracts';
import { api } from '../../api/api';

/**
 * Filters of the log list and its totals (docs/product.md section 9, logQuerySchema); the time
 * range is left out when cleared. `username` and `channel` are admin only: the self routes ignore
 * them, so they are not sent there (`channel` as the form's text, which the route reads as a
 * number).
 */
export type LogFilterParams = Pick<LogQuery, 'type' | 'token_name' | 'model_name' | 'group' | 'start_timestamp' | 'end_timestamp'> & {
  username?: LogQuery['username'];
  channel?: string;
};

export interface LogListArgs extends LogFilterParams {
  /** Admins read /api/log/, everyone else /api/log/self. */
  admin: boolean;
  p: number;
  page_size: number;
}

export interface LogStatArgs extends LogFilterParams {
  admin: boolean;
}

const params = ({ admin, ...rest }: LogListArgs | LogStatArgs) => {
  if (admin) return rest;
  const { username: _username, channel: _channel, ...own } = rest;
  return own;
};

export const logsApi = api.injectEndpoints({
  endpoints: (build) => ({
    logs: build.query<Page<LogView>, LogListArgs>({
      query: (args) => ({ url: args.admin ? '/log/' : '/log/self', params: params(args) }),
      providesTags: ['Log'],
    }),
    logStat: build.query<LogStat, LogStatArgs>({
      query: (args) => ({ url: args.admin ? '/log/stat' : '/log/self/stat', params: params(args) }),
      providesTags: ['Log'],
    }),
  }),
});

export const { useLogsQuery, useLogStatQuery } = logsApi;
