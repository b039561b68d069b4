import type {
  AffTransferBody,
  EmailBindBody,
  UpdateSelfBody,
  UpdateUserSettingBody,
  UserSettingView,
  WechatCodeBody,
  WxPusherBindResult,
  WxPusherQrCode,
} from '@aigw/contracts';
import { api } from '../../../api/api';

/** The fields the Telegram login widget hands back, forwarded as the bind call's body. */
export type TelegramAuthFields = Record<string, string>;

/** The personal settings tab: the signed-in user's own account (docs/product.md section 4). */
export const personalApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** The own invite code (created by the server on first ask). */
    affCode: build.query<string, void>({ query: () => '/user/aff' }),
    /**
     * Model names the user's group may call, for the models card, which shows a failure in place
     * (so silent, unlike self/api's selfModels, whose pickers rely on the error toast).
     */
    personalModels: build.query<string[], void>({
      query: () => '/user/models',
      extraOptions: { silent: true },
      transformResponse: (data: string[] | null) => data ?? [],
      providesTags: ['Model'],
    }),
    /** Moves pending invite earnings into the balance; answers the server's message. */
    transferAffQuota: build.mutation<string, AffTransferBody>({
      query: (body) => ({ url: '/user/aff_transfer', method: 'POST', body }),
      transformResponse: (_data: unknown, meta) => meta?.message ?? '',
      invalidatesTags: ['Self'],
    }),
    // The binds and the new access token change the account: POST (rule R12).
    bindEmail: build.mutation<null, EmailBindBody>({
      query: (body) => ({ url: '/oauth/email/bind', method: 'POST', body }),
      invalidatesTags: ['Self'],
    }),
    bindWechat: build.mutation<null, WechatCodeBody>({
      query: (body) => ({ url: '/oauth/wechat/bind', method: 'POST', body }),
      invalidatesTags: ['Self'],
    }),
    bindTelegram: build.mutation<null, TelegramAuthFields>({
      query: (body) => ({ url: '/oauth/telegram/bind', method: 'POST', body }),
      invalidatesTags: ['Self'],
    }),
    /** A new system access token; the previous one stops working. */
    generateAccessToken: build.mutation<string, void>({ query: () => ({ url: '/user/token', method: 'POST' }) }),
    changeOwnPassword: build.mutation<null, Required<Pick<UpdateSelfBody, 'password' | 'original_password'>>>({
      query: (body) => ({ url: '/user/self', method: 'PUT', body }),
    }),
    deleteOwnAccount: build.mutation<null, void>({ query: () => ({ url: '/user/self', method: 'DELETE' }) }),
    /** The own notification settings (secrets left out: only whether each is set). */
    userSetting: build.query<UserSettingView, void>({ query: () => '/user/setting', providesTags: ['UserSetting'] }),
    updateUserSetting: build.mutation<UserSettingView, UpdateUserSettingBody>({
      query: (body) => ({ url: '/user/setting', method: 'PUT', body }),
      invalidatesTags: (_result, error) => (error ? [] : ['UserSetting']),
    }),
    /** A fresh WxPusher QR code each call (a mutation: never served from the cache). */
    wxPusherQrCode: build.mutation<WxPusherQrCode, void>({ query: () => ({ url: '/user/wxpusher/qrcode' }) }),
    /** Whether the code was scanned; bound stores the uid (POST, rule R12). */
    bindWxPusher: build.mutation<WxPusherBindResult, { code: string }>({
      query: (body) => ({ url: '/user/wxpusher/bind', method: 'POST', body }),
      invalidatesTags: (result) => (result?.bound ? ['UserSetting'] : []),
    }),
    unbindWxPusher: build.mutation<null, void>({ query: () => ({ url: '/user/wxpusher', method: 'DELETE' }), invalidatesTags: ['UserSetting'] }),
  }),
});

export const {
  useAffCodeQuery,
  usePersonalModelsQuery,
  useTransferAffQuotaMutation,
  useBindEmailMutation,
  useBindWechatMutation,
  useBindTelegramMutation,
  useGenerateAccessTokenMutation,
  useChangeOwnPasswordMutation,
  useDeleteOwnAccountMutation,
  useUserSettingQuery,
  useUpdateUserSettingMutation,
  useWxPusherQrCodeMutation,
  useBindWxPusherMutation,
  useUnbindWxPusherMutation,
} = personalApi;
