import type zh from '../zh-CN/home';
import type { MessagesOf } from '../types';

export default {
  'pages.home.intro': 'One API for many AI models: call them in the OpenAI format, pay for what you use.',
  'pages.home.baseUrl': 'API address: ',
  'pages.home.docs': 'Documentation',
  'pages.home.start': 'Get started',
  'pages.home.notice': 'Notice',
  'pages.home.notice.today': 'Close for today',
  'pages.about.title': 'About',
  'pages.about.empty': 'The administrator has not written an about text yet; it can be set under Settings → Other (markdown, HTML or a URL).',
} satisfies MessagesOf<typeof zh>;
