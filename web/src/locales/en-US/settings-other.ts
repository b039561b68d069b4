import type zh from '../zh-CN/settings-other';
import type { MessagesOf } from '../types';

export default {
  'pages.settings.other.about.help':
    'Enter the new about content here; Markdown & HTML are supported. If you enter a link, it is used as the address of an iframe, which lets you use any web page as the about page',
  'pages.settings.other.about.save': 'Set about',
  'pages.settings.other.about.title': 'About',
  'pages.settings.other.footer.help': 'Enter the new footer here; leave it empty for the default footer. HTML is supported',
  'pages.settings.other.footer.save': 'Set footer',
  'pages.settings.other.footer.title': 'Footer',
  'pages.settings.other.homePage.help':
    'Enter the home page content here; Markdown & HTML are supported, and once set the default home page is no longer shown. If you enter a link, it is used as the address of an iframe, which lets you use any web page as the home page',
  'pages.settings.other.homePage.save': 'Set home page content',
  'pages.settings.other.homePage.title': 'Home page content',
  'pages.settings.other.logo': 'Logo image URL',
  'pages.settings.other.logo.placeholder': 'Enter the logo image URL here',
  'pages.settings.other.logo.save': 'Set logo',
  'pages.settings.other.logo.title': 'Logo',
  'pages.settings.other.notice.help': 'Enter the new notice here; Markdown & HTML are supported',
  'pages.settings.other.notice.save': 'Set notice',
  'pages.settings.other.notice.title': 'Notice',
  'pages.settings.other.preview': 'Preview',
  'pages.settings.other.preview.help': 'Scripts and other unsafe content are removed from the preview, just as on the page itself',
  'pages.settings.other.systemName.placeholder': 'Enter the system name here',
  'pages.settings.other.systemName.save': 'Set system name',
  'pages.settings.other.systemName.title': 'System name',
} satisfies MessagesOf<typeof zh>;
