import type {
  EmailBody,
  LoginBody,
  LoginResult,
  PasswordResetBody,
  RegisterBody,
  TurnstileQuery,
  TwoFactorChallenge,
  User,
  WechatCodeBody,
} from '@aigw/contracts';
import { api } from '../../api/api';

const withTurnstile = (path: string, turnstile?: string) => (turnstile ? `${path}?turnstile=${encodeURIComponent(turnstile)}` : path);

export const authApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** The user, or `require_2fa` when the account has two-factor sign-in (the code goes to /user/login/2fa). */
    login: build.mutation<LoginResult | TwoFactorChallenge, LoginBody & TurnstileQuery>({
      query: ({ turnstile, ...body }) => ({ url: withTurnstile('/user/login', turnstile), method: 'POST', body }),
    }),
    register: build.mutation<null, RegisterBody & TurnstileQuery>({
      query: ({ turnstile, ...body }) => ({ url: withTurnstile('/user/register', turnstile), method: 'POST', body }),
    }),
    // Every call that changes state is a POST (rule R12; docs/security.md).
    logout: build.mutation<null, void>({
      query: () => ({ url: '/user/logout', method: 'POST' }),
    }),
    /** Sends an email verification code. */
    sendVerificationCode: build.mutation<null, EmailBody & TurnstileQuery>({
      query: ({ email, turnstile }) => ({ url: withTurnstile('/verification', turnstile), method: 'POST', body: { email } }),
    }),
    /** Sends a password-reset email. */
    sendPasswordReset: build.mutation<null, EmailBody & TurnstileQuery>({
      query: ({ email, turnstile }) => ({ url: withTurnstile('/reset_password', turnstile), method: 'POST', body: { email } }),
    }),
    /** Completes a reset from the emailed link; answers the new password. */
    confirmPasswordReset: build.mutation<string, PasswordResetBody>({
      query: (body) => ({ url: '/user/reset', method: 'POST', body }),
    }),
    /** A state value for a third-party authorization page (`aff` keeps an invite code). */
    oauthState: build.mutation<string, { aff?: string }>({
      query: ({ aff }) => ({ url: '/oauth/state', params: aff ? { aff } : {} }),
    }),
    /** The OAuth callback: logs in, or binds when the answer's message is 'bind'. */
    oauthCallback: build.mutation<{ user: User | null; bound: boolean }, { provider: string; code: string; state: string }>({
      query: ({ provider, code, state }) => ({ url: `/oauth/${encodeURIComponent(provider)}`, params: { code, state } }),
      transformResponse: (data: User | null, meta) => ({ user: data, bound: meta?.message === 'bind' }),
    }),
    wechatLogin: build.mutation<User, WechatCodeBody>({
      query: ({ code }) => ({ url: '/oauth/wechat', method: 'POST', body: { code } }),
    }),
    telegramLogin: build.mutation<User, Record<string, string>>({
      query: (body) => ({ url: '/oauth/telegram/login', method: 'POST', body }),
    }),
  }),
});

export const {
  useLoginMutation,
  useRegisterMutation,
  useLogoutMutation,
  useSendVerificationCodeMutation,
  useSendPasswordResetMutation,
  useConfirmPasswordResetMutation,
  useOauthStateMutation,
  useOauthCallbackMutation,
  useWechatLoginMutation,
  useTelegramLoginMutation,
} = authApi;
