import type {
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryView,
  Page,
  UpdateWebhookBody,
  WebhookEndpoint,
  WebhookTestResult,
  WebhookWithSecret,
} from '@aigw/contracts';
import { api } from '../../../api/api';

/** The deliveries table's filters and page ('' = any kind or status). */
export interface DeliveryListArgs {
  kind: NonNullable<DeliveriesQuery['kind']> | '';
  status: NonNullable<DeliveriesQuery['status']> | '';
  /** 1-based. */
  page: number;
  pageSize: number;
}

/**
 * Root's webhook endpoints and the notifier's delivery records (`/api/webhook/*`). Create and
 * rotate answer the signing secret, which the server never shows again. Writes are silent: the
 * dialogs show refusals at the field they name.
 */
export const webhooksApi = api.enhanceEndpoints({ addTagTypes: ['Webhook', 'Delivery'] }).injectEndpoints({
  endpoints: (build) => ({
    webhooks: build.query<WebhookEndpoint[], void>({ query: () => '/webhook/', providesTags: ['Webhook'] }),
    createWebhook: build.mutation<WebhookWithSecret, CreateWebhookBody>({
      query: (body) => ({ url: '/webhook/', method: 'POST', body }),
      extraOptions: { silent: true },
      invalidatesTags: ['Webhook'],
    }),
    updateWebhook: build.mutation<WebhookEndpoint, UpdateWebhookBody>({
      query: (body) => ({ url: '/webhook/', method: 'PUT', body }),
      extraOptions: { silent: true },
      invalidatesTags: ['Webhook'],
    }),
    deleteWebhook: build.mutation<null, number>({
      query: (id) => ({ url: `/webhook/${id}`, method: 'DELETE' }),
      invalidatesTags: ['Webhook'],
    }),
    rotateWebhookSecret: build.mutation<WebhookWithSecret, number>({
      query: (id) => ({ url: `/webhook/${id}/rotate`, method: 'POST', body: {} }),
      invalidatesTags: ['Webhook'],
    }),
    /** A signed ping sent at once; the outcome is the answer (a failed ping is not an API failure). */
    testWebhook: build.mutation<WebhookTestResult, number>({
      query: (id) => ({ url: `/webhook/${id}/test`, method: 'POST' }),
      invalidatesTags: ['Delivery'],
    }),
    deliveries: build.query<Page<DeliveryView>, DeliveryListArgs>({
      query: ({ kind, status, page, pageSize }) => ({ url: '/webhook/deliveries', params: { kind, status, p: page, page_size: pageSize } }),
      providesTags: ['Delivery'],
    }),
  }),
});

export const {
  useWebhooksQuery,
  useCreateWebhookMutation,
  useUpdateWebhookMutation,
  useDeleteWebhookMutation,
  useRotateWebhookSecretMutation,
  useTestWebhookMutation,
  useDeliveriesQuery,
} = webhooksApi;
