import type zh from '../zh-CN/auth';
import type { MessagesOf } from '../types';

export default {
  'pages.login.title': 'Log in',
  'pages.login.expired': 'Not logged in or login expired, please log in again',
  'pages.login.required': 'Please enter username and password',
  'pages.login.success': 'Logged in',
  'pages.login.defaultPassword.title': 'Security notice',
  'pages.login.defaultPassword': 'You are using the default password, change it immediately',
  'pages.login.defaultPassword.change': 'Change it',
  'pages.login.username.placeholder': 'Username or email',
  'pages.login.password.placeholder': 'Password',
  'pages.login.submit': 'Log in',
  'pages.login.noAccount': 'No account?',
  'pages.login.toRegister': 'Register',
  'pages.login.forgot': 'Forgot your password?',
  'pages.login.toReset': 'Reset it',
  'pages.login.thirdParty': 'Log in with',
  'pages.turnstile.wait': 'Wait a few seconds, Turnstile is checking the environment',
} satisfies MessagesOf<typeof zh>;
