import { topUpPayAnswerSchema, type RedeemBody, type TopUpAmountBody, type TopUpPayAnswer, type TopUpPayBody } from '@aigw/contracts';
import { api } from '../../api/api';

/** What the payment gateway needs: the form fields to post and where to post them. */
export interface PaymentForm {
  url: TopUpPayAnswer['url'];
  fields: NonNullable<TopUpPayAnswer['data']>;
}

/** The gateway's address beside `data` in the answer. */
const paymentTarget = topUpPayAnswerSchema.pick({ url: true });

export const walletApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/user/topup: redeems a code; answers the quota added. */
    redeemCode: build.mutation<number, RedeemBody>({
      query: (body) => ({ url: '/user/topup', method: 'POST', body }),
      invalidatesTags: ['Self', 'Log'],
    }),
    /** POST /api/user/amount: the money payable for an amount. */
    topupAmount: build.mutation<string, TopUpAmountBody>({
      query: (body) => ({ url: '/user/amount', method: 'POST', body }),
    }),
    /** POST /api/user/pay: the gateway form (fields in `data`, target in `url`). */
    topupPay: build.mutation<PaymentForm, TopUpPayBody>({
      query: (body) => ({ url: '/user/pay', method: 'POST', body }),
      // The page says what went wrong itself (请求失败 for anything but the server's refusal: docs/product.md section 8).
      extraOptions: { silent: true },
      transformResponse: (data: TopUpPayAnswer['data'], meta) => ({ fields: data ?? {}, url: paymentTarget.safeParse(meta?.envelope).data?.url ?? '' }),
    }),
  }),
});

export const { useRedeemCodeMutation, useTopupAmountMutation, useTopupPayMutation } = walletApi;

/** Sends the browser to the payment gateway by posting its form (the gateway's own page takes over). */
export function submitPaymentForm({ url, fields }: PaymentForm): void {
  const form = document.createElement('form');
  form.method = 'POST';
  form.action = url;
  form.style.display = 'none';
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
  form.remove();
}
