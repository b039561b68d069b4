import type { LoginResult, PasskeyOptions, TwoFactorCodeBody } from '@aigw/contracts';
import { api } from '../../api/api';

/** The second step of a sign-in and the passkey sign-in (established routes). */
export const secondFactorLoginApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** Finishes a sign-in that answered `require_2fa`: the browser's pending sign-in and a code. */
    loginTwoFactor: build.mutation<LoginResult, TwoFactorCodeBody>({
      query: (body) => ({ url: '/user/login/2fa', method: 'POST', body }),
    }),
    passkeyLoginBegin: build.mutation<PasskeyOptions, void>({
      query: () => ({ url: '/user/passkey/login/begin', method: 'POST' }),
    }),
    passkeyLoginFinish: build.mutation<LoginResult, Record<string, unknown>>({
      query: (body) => ({ url: '/user/passkey/login/finish', method: 'POST', body }),
    }),
  }),
});

export const { useLoginTwoFactorMutation, usePasskeyLoginBeginMutation, usePasskeyLoginFinishMutation } = secondFactorLoginApi;
