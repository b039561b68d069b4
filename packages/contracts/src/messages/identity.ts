import type { Catalogue } from './catalogue.js';

/** What the identity service's routes say: sign-in, registration, users, options, profile. */
export const identityMessages = {
  'auth.wrong_credentials': { 'zh-CN': '用户名或密码错误，或用户已被封禁', 'en-US': 'username or password is wrong, or the user has been banned' },
  'users.credentials_required': { 'zh-CN': '用户名和密码不能为空', 'en-US': 'username and password cannot be empty' },
} as const satisfies Catalogue;
