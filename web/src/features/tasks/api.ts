import type { AsyncTask, DrawingTask, Page } from '@aigw/contracts';
import { api } from '../../api/api';

/** The list filters both screens share; channel_id is an admin filter. */
export interface TaskListArgs {
  admin: boolean;
  p: number;
  page_size: number;
  /** The task id to find (mj_id for drawings, task_id for tasks). */
  id: string;
  channel_id?: string;
  /** Unix seconds; left out when the range is cleared. */
  start_timestamp?: number;
  end_timestamp?: number;
}

const params = ({ admin, id: _id, channel_id, ...rest }: TaskListArgs) => (admin ? { ...rest, channel_id: channel_id ?? '' } : rest);

export const tasksApi = api.injectEndpoints({
  endpoints: (build) => ({
    drawings: build.query<Page<DrawingTask>, TaskListArgs>({
      query: (args) => ({ url: args.admin ? '/mj/' : '/mj/self', params: { ...params(args), mj_id: args.id } }),
      providesTags: ['Task'],
    }),
    asyncTasks: build.query<Page<AsyncTask>, TaskListArgs>({
      query: (args) => ({ url: args.admin ? '/task/' : '/task/self', params: { ...params(args), task_id: args.id } }),
      providesTags: ['Task'],
    }),
  }),
});

export const { useDrawingsQuery, useAsyncTasksQuery } = tasksApi;
