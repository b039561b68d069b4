import type {
  BackupCodes,
  ChannelKey,
  PasskeyOptions,
  PasskeyStatus,
  PasskeyView,
  TwoFactorCodeBody,
  TwoFactorSetup,
  TwoFactorStatus,
  VerifyBody,
  VerifyResult,
} from '@aigw/contracts';
import { api } from '../../api/api';

const securityApi = api.enhanceEndpoints({ addTagTypes: ['TwoFactor', 'Passkey'] });

/**
 * Second factors of the signed-in user (docs/product.md section 4, the personal tab), and the
 * step-up (`POST /api/verify`) that opens sensitive actions such as a channel key reveal.
 */
export const secondFactorApi = securityApi.injectEndpoints({
  endpoints: (build) => ({
    twoFactorStatus: build.query<TwoFactorStatus, void>({ query: () => '/user/2fa/status', providesTags: ['TwoFactor'] }),
    setupTwoFactor: build.mutation<TwoFactorSetup, void>({ query: () => ({ url: '/user/2fa/setup', method: 'POST' }) }),
    enableTwoFactor: build.mutation<null, TwoFactorCodeBody>({
      query: (body) => ({ url: '/user/2fa/enable', method: 'POST', body }),
      invalidatesTags: ['TwoFactor'],
    }),
    disableTwoFactor: build.mutation<null, TwoFactorCodeBody>({
      query: (body) => ({ url: '/user/2fa/disable', method: 'POST', body }),
      invalidatesTags: ['TwoFactor'],
    }),
    regenerateBackupCodes: build.mutation<BackupCodes, TwoFactorCodeBody>({
      query: (body) => ({ url: '/user/2fa/backup_codes', method: 'POST', body }),
      invalidatesTags: ['TwoFactor'],
    }),
    passkeys: build.query<PasskeyStatus, void>({ query: () => '/user/passkey', providesTags: ['Passkey'] }),
    /** Silent: a 403 means a step-up comes first, which the card asks for itself. */
    /** Options for @simplewebauthn/browser (`optionsJSON`), as every begin call answers. */
    passkeyRegisterBegin: build.mutation<PasskeyOptions, void>({
      query: () => ({ url: '/user/passkey/register/begin', method: 'POST' }),
      extraOptions: { silent: true },
    }),
    passkeyRegisterFinish: build.mutation<PasskeyView, Record<string, unknown>>({
      query: (body) => ({ url: '/user/passkey/register/finish', method: 'POST', body }),
      invalidatesTags: ['Passkey'],
    }),
    deletePasskey: build.mutation<null, number>({
      query: (id) => ({ url: `/user/passkey/${id}`, method: 'DELETE' }),
      invalidatesTags: ['Passkey'],
    }),
    passkeyVerifyBegin: build.mutation<PasskeyOptions, void>({ query: () => ({ url: '/user/passkey/verify/begin', method: 'POST' }) }),
    verify: build.mutation<VerifyResult, VerifyBody | { method: 'passkey'; credential: Record<string, unknown> }>({
      query: (body) => ({ url: '/verify', method: 'POST', body }),
    }),
    /** Silent: a 403 asks for a step-up, which the button handles. */
    revealChannelKey: build.mutation<ChannelKey, number>({
      query: (id) => ({ url: `/channel/${id}/key`, method: 'POST' }),
      extraOptions: { silent: true },
    }),
  }),
});

export const {
  useTwoFactorStatusQuery,
  useSetupTwoFactorMutation,
  useEnableTwoFactorMutation,
  useDisableTwoFactorMutation,
  useRegenerateBackupCodesMutation,
  usePasskeysQuery,
  usePasskeyRegisterBeginMutation,
  usePasskeyRegisterFinishMutation,
  useDeletePasskeyMutation,
  usePasskeyVerifyBeginMutation,
  useVerifyMutation,
  useRevealChannelKeyMutation,
} = secondFactorApi;
