import type { DeadLetterReplayAll, DeadLetterService, DeadLetterView, Page } from '@aigw/contracts';
import { api } from '../../../api/api';

/** One service's page of dead letters. */
export interface DeadLetterListArgs {
  service: DeadLetterService;
  /** 1-based. */
  page: number;
  pageSize: number;
}

/** One dead letter of one service. */
export interface DeadLetterRef {
  service: DeadLetterService;
  id: number;
}

const tagOf = (service: DeadLetterService) => [{ type: 'DeadLetter' as const, id: service }];

/**
 * Root's dead letters (`/api/dead_letter/<service>/`): every service keeps and serves its own, so
 * there is one list per service. A replay or deletion refreshes that service's list, a failed
 * replay too (its attempt count grew); the base query toasts why it failed.
 */
export const deadLettersApi = api.enhanceEndpoints({ addTagTypes: ['DeadLetter'] }).injectEndpoints({
  endpoints: (build) => ({
    deadLetters: build.query<Page<DeadLetterView>, DeadLetterListArgs>({
      query: ({ service, page, pageSize }) => ({ url: `/dead_letter/${service}/`, params: { p: page, page_size: pageSize } }),
      providesTags: (_result, _error, { service }) => tagOf(service),
    }),
    replayDeadLetter: build.mutation<null, DeadLetterRef>({
      query: ({ service, id }) => ({ url: `/dead_letter/${service}/${id}/replay`, method: 'POST' }),
      invalidatesTags: (_result, _error, { service }) => tagOf(service),
    }),
    replayAllDeadLetters: build.mutation<DeadLetterReplayAll, DeadLetterService>({
      query: (service) => ({ url: `/dead_letter/${service}/replay_all`, method: 'POST' }),
      invalidatesTags: (_result, _error, service) => tagOf(service),
    }),
    deleteDeadLetter: build.mutation<null, DeadLetterRef>({
      query: ({ service, id }) => ({ url: `/dead_letter/${service}/${id}`, method: 'DELETE' }),
      invalidatesTags: (_result, _error, { service }) => tagOf(service),
    }),
  }),
});

export const { useDeadLettersQuery, useReplayDeadLetterMutation, useReplayAllDeadLettersMutation, useDeleteDeadLetterMutation } = deadLettersApi;
