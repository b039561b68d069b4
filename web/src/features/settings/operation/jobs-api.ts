import type { JobView } from '@aigw/contracts';
import { api } from '../../../api/api';

/** Root's list of the background jobs and their last runs (`GET /api/job/`). */
export const jobsApi = api.enhanceEndpoints({ addTagTypes: ['Job'] }).injectEndpoints({
  endpoints: (build) => ({
    jobs: build.query<JobView[], void>({ query: () => '/job/', providesTags: ['Job'] }),
  }),
});

export const { useJobsQuery } = jobsApi;
