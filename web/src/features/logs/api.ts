import type { LogView, Page } from '@aigw/contracts';
import { api } from '../../api/api';

/** Filters of the log list and its totals, as the routes take them (docs/product.md section 9, logQuerySchema). */
export interface LogFilterParams {
  type: number;
  token_name: string;
  model_name: string;
  group: string;
  /** Unix seconds; left out when the range is cleared. */
  start_timestamp?: number;
  end_timestamp?: number;
  /** Admin only: the self routes ignore them, so they are not sent there. */
  username?: string;
  channel?: string;
}

export interface LogListArgs extends LogFilterParams {
  /** Admins read /api/log/, everyone else /api/log/self. */
  admin: boolean;
  p: number;
  page_size: number;
}

export interface LogStatArgs extends LogFilterParams {
  admin: boolean;
}

/** GET /api/log/stat: consumption in the range, requests and tokens of the last minute. */
export interface LogStat {
  quota: number;
  rpm: number;
  tpm: number;
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
