import type zh from '../zh-CN/errors';
import type { MessagesOf } from '../types';

export default {
  'errors.http.429': 'Too many requests, try again later',
  'errors.http.500': 'Internal server error, contact the administrator',
  'errors.http.405': 'This site is demo only, no server',
  'errors.badAnswer': 'The server sent an answer the console cannot read; try again later',
  'errors.network': 'Unable to connect to server',
  'errors.status.failed': 'Failed to load status',
  'errors.clipboard.title': 'Cannot copy to clipboard, copy manually',
  'errors.forbidden.title': 'No access',
  'errors.forbidden.description': 'You do not have permission to open this page',
  'errors.notFound.title': 'Page does not exist, check your browser address',
  'errors.notFound.description': 'The requested page was not found',
  'errors.backHome': 'Back to home',
} satisfies MessagesOf<typeof zh>;
