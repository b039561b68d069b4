/**
 * Browser storage under the established console's key names, so a browser that used it keeps
 * its choices. Every read tolerates a missing, corrupt or unavailable store.
 */
export const storageKeys = {
  user: 'user',
  status: 'status',
  locale: 'locale',
  themeMode: 'theme-mode',
  pageSize: 'page-size',
  idSort: 'id-sort',
  models: 'models',
  sidebarCollapsed: 'default_collapse_sidebar',
  noticeClosedOn: 'notice_close_date',
  /** The invite code of an invite link (`?aff=`), kept until registration. */
  inviteCode: 'aff',
} as const;
export type StorageKey = (typeof storageKeys)[keyof typeof storageKeys];

export function readText(key: StorageKey): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function readJson<T>(key: StorageKey): T | null {
  const text = readText(key);
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

export function write(key: StorageKey, value: unknown): void {
  try {
    if (value === null || value === undefined) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, typeof value === 'string' ? value : JSON.stringify(value));
  } catch {
    // Private mode or a full store: the choice lasts for this page only.
  }
}
