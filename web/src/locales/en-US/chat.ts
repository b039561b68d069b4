import type zh from '../zh-CN/chat';
import type { MessagesOf } from '../types';

export default {
  'pages.chat.notConfigured': 'Ask the administrator to configure chat links',
  'pages.chat.badConfig': 'The chat link is misconfigured, contact the administrator',
  'pages.chat.appLink': 'This chat client is an app: open it with the button below',
  'pages.chat.open': 'Open {name}',
} satisfies MessagesOf<typeof zh>;
