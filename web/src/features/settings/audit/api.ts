import type { AuditQuery, AuditRecord, Page } from '@aigw/contracts';
import { api } from '../../../api/api';

/** The audit table's filters and page, as GET /api/audit/ takes them ('' = any). */
export type AuditListArgs = Omit<AuditQuery, 'p' | 'page_size'> & {
  /** 1-based. */
  page: number;
  pageSize: number;
};

/** Root's audit trail: every admin action of every service, newest first (`/api/audit/`). */
export const auditApi = api.enhanceEndpoints({ addTagTypes: ['Audit'] }).injectEndpoints({
  endpoints: (build) => ({
    auditRecords: build.query<Page<AuditRecord>, AuditListArgs>({
      query: ({ page, pageSize, ...filters }) => ({ url: '/audit/', params: { ...filters, p: page, page_size: pageSize } }),
      providesTags: ['Audit'],
    }),
  }),
});

export const { useAuditRecordsQuery } = auditApi;
