import type zh from '../zh-CN/settings';
import type { MessagesOf } from '../types';

export default {
  'pages.settings.save': 'Save settings',
  'pages.settings.save.checkInput': 'Please check input',
  'pages.settings.save.unchanged': 'You seem not to have changed anything',
  'pages.settings.save.succeeded': 'Save succeeded',
  'pages.settings.save.failed': 'Save failed, retry',
  'pages.settings.save.partlyFailed': 'Some saves failed, retry',
  'pages.settings.json.invalid': 'Not a legal JSON string',
} satisfies MessagesOf<typeof zh>;
