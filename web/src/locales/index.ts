import type { ConfigProviderProps } from 'antd';
import antdEnUS from 'antd/locale/en_US';
import antdZhCN from 'antd/locale/zh_CN';
import 'dayjs/locale/zh-cn';
import { defaultLocale, type LocaleCode } from '../app/preferences';
import enUS from './en-US';
import zhCN from './zh-CN';

export const localeMessages: Record<LocaleCode, Record<string, string>> = { 'zh-CN': zhCN, 'en-US': enUS };

interface LocaleBundle {
  /** Messages of the locale over zh-CN's, so a missing translation falls back to Chinese. */
  messages: Record<string, string>;
  antd: NonNullable<ConfigProviderProps['locale']>;
  dayjs: string;
  /** Name shown in the language switch, in its own language. */
  label: string;
}

export const locales: Record<LocaleCode, LocaleBundle> = {
  'zh-CN': { messages: zhCN, antd: antdZhCN, dayjs: 'zh-cn', label: '中文' },
  'en-US': { messages: { ...localeMessages[defaultLocale], ...enUS }, antd: antdEnUS, dayjs: 'en', label: 'English' },
};
