import type zh from '../zh-CN/playground';
import type { MessagesOf } from '../types';

export default {
  'pages.playground.noToken': 'No enabled token: make sure at least one token is enabled',
  'pages.playground.expired': 'Not logged in or login expired, please log in again',
  'pages.playground.parseFailed': 'Failed to parse the chat data',
  'pages.playground.stopped': 'Stopped',
  'pages.playground.state.loading': 'Requesting',
  'pages.playground.state.incomplete': 'Generating',
  'pages.playground.state.complete': 'Complete',
  'pages.playground.state.error': 'Error',
  'pages.playground.settings': 'Model settings',
  'pages.playground.group': 'Group',
  'pages.playground.model': 'Model',
  'pages.playground.temperature': 'Temperature',
  'pages.playground.maxTokens': 'Max tokens (0 = no limit)',
  'pages.playground.system': 'System prompt',
  'pages.playground.system.placeholder': 'For example: you are a helpful assistant.',
  'pages.playground.chat': 'Chat',
  'pages.playground.clear': 'Clear chat',
  'pages.playground.empty': 'Send a message to start',
  'pages.playground.you': 'Me',
  'pages.playground.assistant': 'Assistant',
  'pages.playground.input': 'Type a message; Enter sends, Shift+Enter adds a line',
  'pages.playground.stop': 'Stop',
  'pages.playground.send': 'Send',
} satisfies MessagesOf<typeof zh>;
