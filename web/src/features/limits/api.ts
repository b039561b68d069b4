import { skipToken } from '@reduxjs/toolkit/query';
import type { LimitUse, LimitUseQuery } from '@aigw/contracts';
import { api } from '../../api/api';

/** A scope whose limits count use (docs/architecture.md section 5.9); the id as the caller has it. */
export interface LimitUseArgs {
  scope: LimitUseQuery['scope'];
  id: number | string;
  /** A model within this group (scope `model` only). */
  group?: string;
}

export const limitsApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/limits/use: what the scope's rpm, rpd, tpm and tpd windows count now. */
    limitUse: build.query<LimitUse[], LimitUseArgs>({
      query: ({ scope, id, group }) => ({ url: '/limits/use', params: { scope, id: String(id), ...(group ? { group } : {}) } }),
      // The use is shown beside the limits, never instead of them: when the relay or its counters
      // do not answer, the editor still works and simply shows no use (so no toast either).
      extraOptions: { silent: true },
    }),
  }),
});

export const { useLimitUseQuery } = limitsApi;

/**
 * The use of a scope for RateLimitFields' `use` prop, fresh each time an editor opens (the
 * counters move with every request, so a cached answer would be stale); undefined while it loads,
 * when it failed, or when there is nothing to ask about (`args` null: a form that creates).
 */
export function useLimitUse(args: LimitUseArgs | null): LimitUse[] | undefined {
  return useLimitUseQuery(args ?? skipToken, { refetchOnMountOrArgChange: true }).data;
}
