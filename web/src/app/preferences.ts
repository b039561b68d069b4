import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { PAGE_SIZE_DEFAULT } from '@aigw/contracts';
import { readJson, readText, storageKeys } from '../lib/storage';

export const localeCodes = ['zh-CN', 'en-US'] as const;
export type LocaleCode = (typeof localeCodes)[number];
/** zh-CN is the default and the fallback. */
export const defaultLocale: LocaleCode = 'zh-CN';

export const themeModes = ['light', 'dark', 'system'] as const;
export type ThemeMode = (typeof themeModes)[number];

export const pageSizeOptions = [10, 20, 50, 100] as const;

/** Choices of this browser, saved in browser storage. */
export interface PreferencesState {
  locale: LocaleCode;
  themeMode: ThemeMode;
  pageSize: number;
  /** null until the user toggles it: then the server's default_collapse_sidebar applies. */
  sidebarCollapsed: boolean | null;
}

function stored<T extends string>(key: Parameters<typeof readText>[0], allowed: readonly T[], fallback: T): T {
  const value = readText(key);
  return allowed.includes(value as T) ? (value as T) : fallback;
}

export function loadPreferences(): PreferencesState {
  const pageSize = Number(readText(storageKeys.pageSize));
  const collapsed = readJson<boolean>(storageKeys.sidebarCollapsed);
  return {
    locale: stored(storageKeys.locale, localeCodes, defaultLocale),
    themeMode: stored(storageKeys.themeMode, themeModes, 'system'),
    pageSize: (pageSizeOptions as readonly number[]).includes(pageSize) ? pageSize : PAGE_SIZE_DEFAULT,
    sidebarCollapsed: typeof collapsed === 'boolean' ? collapsed : null,
  };
}

export const preferencesSlice = createSlice({
  name: 'preferences',
  initialState: loadPreferences,
  reducers: {
    localeChosen(state, action: PayloadAction<LocaleCode>) {
      state.locale = action.payload;
    },
    themeModeChosen(state, action: PayloadAction<ThemeMode>) {
      state.themeMode = action.payload;
    },
    pageSizeChosen(state, action: PayloadAction<number>) {
      state.pageSize = action.payload;
    },
    sidebarToggled(state, action: PayloadAction<boolean>) {
      state.sidebarCollapsed = action.payload;
    },
  },
});

export const { localeChosen, themeModeChosen, pageSizeChosen, sidebarToggled } = preferencesSlice.actions;
