import type zh from '../zh-CN/settings-personal';
import type { MessagesOf } from '../types';

export default {
  'pages.settings.tab.personal': 'Personal',
  'pages.settings.tab.operation': 'Operation',
  'pages.settings.tab.system': 'System',
  'pages.settings.tab.other': 'Other',
} satisfies MessagesOf<typeof zh>;
