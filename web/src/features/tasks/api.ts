import type { Page } from '@aigw/contracts';
import { api } from '../../api/api';

/** A drawing (Midjourney) task as GET /api/mj/ lists it (spec 3). */
export interface DrawingTask {
  id?: number;
  /** Unix seconds, or ms as the established product stores them (formatTimestamp reads both). */
  submit_time: number;
  finish_time: number;
  channel_id: number;
  action: string;
  mj_id: string;
  code: number;
  status: string;
  /** "50%" */
  progress: string;
  image_url: string;
  prompt: string;
  prompt_en: string;
  fail_reason: string;
}

/** An async (music) task as GET /api/task/ lists it (spec 3). */
export interface AsyncTask {
  id?: number;
  submit_time: number;
  finish_time: number;
  progress: string;
  channel_id: number;
  platform: string;
  action: string;
  task_id: string;
  status: string;
  fail_reason: string;
}

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
