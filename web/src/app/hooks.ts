import { useCallback, useMemo } from 'react';
import { accessOf, type Access } from '../access';
import { defaultQuotaDisplay, formatQuota, type QuotaDisplay } from '../lib/quota';
import { useMediaQuery } from './media';
import { useAppSelector } from './store';

export function useCurrentUser() {
  return useAppSelector((state) => state.session.user);
}

export function useAccess(): Access {
  const user = useCurrentUser();
  return useMemo(() => accessOf(user), [user]);
}

/** The cached server status (null until the first answer in a fresh browser). */
export function useStatus() {
  return useAppSelector((state) => state.session.status);
}

export function useQuotaDisplay(): QuotaDisplay {
  const status = useStatus();
  return useMemo(() => (status ? { displayInCurrency: status.display_in_currency, quotaPerUnit: status.quota_per_unit } : defaultQuotaDisplay), [status]);
}

/** `formatQuota` with the server's display settings. */
export function useFormatQuota(): (quota: number, digits?: number) => string {
  const display = useQuotaDisplay();
  return useCallback((quota: number, digits?: number) => formatQuota(quota, display, digits), [display]);
}

/** Dark when chosen, or when following a system that prefers dark. */
export function useIsDark(): boolean {
  const mode = useAppSelector((state) => state.preferences.themeMode);
  const systemDark = useMediaQuery('(prefers-color-scheme: dark)');
  return mode === 'dark' || (mode === 'system' && systemDark);
}
