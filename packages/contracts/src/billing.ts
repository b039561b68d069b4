import { z } from 'zod';
import { msg } from './messages/index.js';
import { rateLimitsSchema } from './limits.js';
import { envelopeSchema, idSchema, pageQuerySchema } from './envelope.js';

/**
 * Billing's wire shapes. Quota is an integer number of units (500000 = $1). Every amount a user
 * can send is bounded, so no arithmetic on it can overflow or wrap (rule R7).
 */
export const MAX_QUOTA = 1_000_000_000_000_000; // 10^15 units = $2 billion, far inside 2^53
/**
 * The longest model name anywhere: a channel's models, a relayed request's model, usage records
 * and log filters. One bound, so a name a channel accepts is one every other part takes.
 */
export const MAX_MODEL_NAME_LENGTH = 128;
export const quotaSchema = z.number().int(msg('validation.integer')).min(0, msg('quota.negative')).max(MAX_QUOTA, msg('quota.too_large'));
/** Admin edits may lower a balance: a signed amount within the same bounds. */
export const signedQuotaSchema = z.number().int(msg('validation.integer')).min(-MAX_QUOTA, msg('quota.too_small')).max(MAX_QUOTA, msg('quota.too_large'));

/** Token status: 1 enabled, 2 disabled, 3 expired, 4 exhausted. */
export const TokenStatus = { Enabled: 1, Disabled: 2, Expired: 3, Exhausted: 4 } as const;
/** Redemption status: 1 unused, 2 disabled, 3 used. */
export const RedemptionStatus = { Unused: 1, Disabled: 2, Used: 3 } as const;
/** Log types: 1 top-up, 2 consume, 3 manage (admin), 4 system. 0 means all in queries. */
/** Log row types, the established product's numbers: 5 error (here: usage-limit refusals). */
export const LogType = { All: 0, Topup: 1, Consume: 2, Manage: 3, System: 4, Error: 5 } as const;

export const TOKEN_NAME_MAX = 50;
export const TOKEN_BATCH_MAX = 100;
export const REDEMPTION_NAME_MAX = 20;
export const REDEMPTION_BATCH_MAX = 100;
/** The longest custom text a key's rate-limit refusal may carry. */
export const RATE_LIMIT_MESSAGE_MAX = 255;

/**
 * Midjourney's speed modes, as clients pick them: the route prefix (`/mj-fast/mj`,
 * `/mj-relax/mj`, `/mj-turbo/mj`) or the prompt's `--fast`, `--relax`, `--turbo`. A key's
 * `drawing_modes` lists those it may draw in (none listed: every mode).
 */
export const DRAWING_MODES = ['fast', 'relax', 'turbo'] as const;
export type DrawingMode = (typeof DRAWING_MODES)[number];
export const drawingModesSchema = z
  .array(z.enum(DRAWING_MODES, { error: msg('tokens.drawing_mode_invalid') }), {
    error: msg('tokens.drawing_modes_invalid'),
  })
  .max(DRAWING_MODES.length * 4, msg('tokens.drawing_modes_too_many'));

/** The custom text of a key's rate-limit refusals ('' = the default text). */
const rateLimitMessageSchema = z
  .string({ error: msg('tokens.rate_limit_message_type') })
  .trim()
  .max(RATE_LIMIT_MESSAGE_MAX, msg('tokens.rate_limit_message_too_long', { maximum: String(RATE_LIMIT_MESSAGE_MAX) }))
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, msg('tokens.rate_limit_message_one_line'));

/** The token as its owner sees it: the key masked (`sk-abcd…wxyz`), never whole. */
export const tokenViewSchema = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  name: z.string(),
  key: z.string(),
  status: z.number().int(),
  created_time: z.number().int(),
  accessed_time: z.number().int(),
  expired_time: z.number().int(),
  remain_quota: z.number().int(),
  unlimited_quota: z.boolean(),
  used_quota: z.number().int(),
  model_limits_enabled: z.boolean(),
  model_limits: z.string(),
  allow_ips: z.string(),
  /** Client addresses refused (one IP or CIDR per line); a match wins over `allow_ips`. */
  deny_ips: z.string(),
  group: z.string(),
  /** Requests and tokens per minute and day, requests at once (0 or absent = unlimited). */
  rate_limits: rateLimitsSchema,
  /** The text a refusal by `rate_limits` answers with ('' = the default text). */
  rate_limit_message: z.string(),
  /** The Midjourney modes the key may draw in ([] = every mode). */
  drawing_modes: z.array(z.enum(DRAWING_MODES)),
});
export type TokenView = z.infer<typeof tokenViewSchema>;

const tokenFields = {
  name: z
    .string()
    .trim()
    .min(1, msg('billing.name_required'))
    .max(TOKEN_NAME_MAX, msg('tokens.name_too_long', { maximum: String(TOKEN_NAME_MAX) })),
  remain_quota: quotaSchema.default(0),
  /** Unix seconds, or -1 for never. */
  expired_time: z.number().int().min(-1).max(253_402_300_799).default(-1),
  unlimited_quota: z.boolean().default(false),
  model_limits_enabled: z.boolean().default(false),
  /** Comma-separated model names. */
  model_limits: z.string().max(4096).default(''),
  /** One IP or CIDR per line (commas accepted). */
  allow_ips: z.string().max(4096).default(''),
  /** Refused client addresses, written like `allow_ips`; a match wins over `allow_ips`. */
  deny_ips: z.string().max(4096).default(''),
  /** '' means the owner's own group. */
  group: z.string().trim().max(64).default(''),
  rate_limits: rateLimitsSchema.default({}),
  rate_limit_message: rateLimitMessageSchema.default(''),
  drawing_modes: drawingModesSchema.default([]),
};

/** POST /api/token/: `count` > 1 creates extras named `<name>-xxxxxx`. */
export const createTokenBodySchema = z.object({
  ...tokenFields,
  count: z
    .number()
    .int()
    .min(1, msg('tokens.count_min'))
    .max(TOKEN_BATCH_MAX, msg('billing.count_max', { maximum: String(TOKEN_BATCH_MAX) }))
    .default(1),
});
export type CreateTokenBody = z.infer<typeof createTokenBodySchema>;

/** PUT /api/token/ (every field optional but the id); with ?status_only=true only status counts. */
export const updateTokenBodySchema = z.object({
  id: idSchema,
  name: tokenFields.name.optional(),
  remain_quota: quotaSchema.optional(),
  expired_time: z.number().int().min(-1).max(253_402_300_799).optional(),
  unlimited_quota: z.boolean().optional(),
  model_limits_enabled: z.boolean().optional(),
  model_limits: z.string().max(4096).optional(),
  allow_ips: z.string().max(4096).optional(),
  deny_ips: z.string().max(4096).optional(),
  group: z.string().trim().max(64).optional(),
  rate_limits: rateLimitsSchema.optional(),
  rate_limit_message: rateLimitMessageSchema.optional(),
  drawing_modes: drawingModesSchema.optional(),
  /** Only `?status_only=true` applies it (1 or 2); a full edit echoes the shown status (1-4) and it is ignored. */
  status: z.number().int().min(1).max(4).optional(),
});
export type UpdateTokenBody = z.infer<typeof updateTokenBodySchema>;

/** The answer of POST /api/token/:id/key: the whole key (`sk-...`), which lists only show masked. */
export const tokenKeySchema = z.object({ key: z.string() });
export type TokenKey = z.infer<typeof tokenKeySchema>;

/** One entry of POST /api/token/keys (the console's "copy selected"): a token's whole key. */
export const revealedKeySchema = z.object({ id: z.number().int(), key: z.string() });
export type RevealedKey = z.infer<typeof revealedKeySchema>;

export const redemptionViewSchema = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  name: z.string(),
  key: z.string(),
  status: z.number().int(),
  quota: z.number().int(),
  created_time: z.number().int(),
  redeemed_time: z.number().int(),
  used_user_id: z.number().int(),
});
export type RedemptionView = z.infer<typeof redemptionViewSchema>;

export const createRedemptionBodySchema = z.object({
  /** Blank: the quota as money (`$0.20`). */
  name: z
    .string()
    .trim()
    .max(REDEMPTION_NAME_MAX, msg('redemption.name_length', { maximum: String(REDEMPTION_NAME_MAX) }))
    .default(''),
  quota: quotaSchema.default(100000),
  count: z
    .number()
    .int()
    .min(1, msg('redemption.count_min'))
    .max(REDEMPTION_BATCH_MAX, msg('billing.count_max', { maximum: String(REDEMPTION_BATCH_MAX) }))
    .default(1),
});
export type CreateRedemptionBody = z.infer<typeof createRedemptionBodySchema>;

export const updateRedemptionBodySchema = z.object({
  id: idSchema,
  name: z
    .string()
    .trim()
    .min(1, msg('billing.name_required'))
    .max(REDEMPTION_NAME_MAX, msg('redemption.name_length', { maximum: String(REDEMPTION_NAME_MAX) }))
    .optional(),
  quota: quotaSchema.optional(),
  status: z.union([z.literal(1), z.literal(2)]).optional(),
});
export type UpdateRedemptionBody = z.infer<typeof updateRedemptionBodySchema>;

/** POST /api/user/topup. */
export const redeemBodySchema = z.object({ key: z.string().trim().min(1, msg('redemption.key_required')).max(64) });
export type RedeemBody = z.infer<typeof redeemBodySchema>;
/** POST /api/user/aff_transfer. */
export const affTransferBodySchema = z.object({ quota: quotaSchema });
export type AffTransferBody = z.infer<typeof affTransferBodySchema>;

/** Online top-up order status (docs/compatibility.md section 6): paid orders are `success`; nothing expires orders yet. */
export const TopUpStatus = { Pending: 'pending', Success: 'success', Expired: 'expired' } as const;
export type TopUpStatus = (typeof TopUpStatus)[keyof typeof TopUpStatus];

/** The wallet's two payment methods (docs/product.md section 8: zfb, wx) and the epay `type` each is sent as. */
export const epayPaymentTypes = { zfb: 'alipay', wx: 'wxpay' } as const;
export type PaymentMethod = keyof typeof epayPaymentTypes;

const topUpAmountSchema = z
  .number()
  .int(msg('validation.integer'))
  .min(1, msg('validation.number_min', { minimum: '1' }))
  .max(MAX_QUOTA, msg('quota.too_large'));

/** POST /api/user/amount: the price of an amount (whole USD units, or quota units when currency display is off). */
export const topUpAmountBodySchema = z.object({
  amount: topUpAmountSchema,
  /** Sent by the console; not used by the epay gateway. */
  top_up_code: z.string().trim().max(64).optional(),
});
export type TopUpAmountBody = z.infer<typeof topUpAmountBodySchema>;

/** POST /api/user/pay: the same, and how the user pays. */
export const topUpPayBodySchema = topUpAmountBodySchema.extend({
  payment_method: z.enum(Object.keys(epayPaymentTypes) as [PaymentMethod, ...PaymentMethod[]], { error: msg('topup.payment_method_invalid') }),
});
export type TopUpPayBody = z.infer<typeof topUpPayBodySchema>;

/**
 * The whole answer of POST /api/user/pay: `data` holds the payment gateway's form fields and `url`
 * beside it where to post them (the browser posts the form, the gateway's page takes over).
 */
export const topUpPayAnswerSchema = envelopeSchema(z.record(z.string(), z.string())).extend({ url: z.string() });
export type TopUpPayAnswer = z.infer<typeof topUpPayAnswerSchema>;

/** GET /api/user/topup (admin): orders, newest first; `keyword` matches the trade number by prefix. */
export const topUpOrderQuerySchema = pageQuerySchema.extend({ keyword: z.string().trim().max(64).default('') });

/** POST /api/user/topup/complete (admin): marks a pending order paid and credits it. */
export const completeTopUpBodySchema = z.object({ trade_no: z.string().trim().min(1, msg('validation.required')).max(64) });

export const topUpOrderViewSchema = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  /** Quota credited when paid. */
  amount: z.number().int(),
  /** Money payable, 2 decimals. */
  money: z.string(),
  trade_no: z.string(),
  /** The gateway's own trade number, once it notified. */
  gateway_trade_no: z.string(),
  payment_method: z.string(),
  gateway: z.string(),
  status: z.enum([TopUpStatus.Pending, TopUpStatus.Success, TopUpStatus.Expired]),
  /** Unix seconds. */
  created_at: z.number().int(),
  /** Unix seconds; 0 while pending. */
  completed_at: z.number().int(),
  /** 0: the gateway's notify; else the admin who completed it by hand. */
  completed_by: z.number().int(),
});
export type TopUpOrderView = z.infer<typeof topUpOrderViewSchema>;

export const logViewSchema = z.object({
  id: z.number().int(),
  created_at: z.number().int(),
  type: z.number().int(),
  content: z.string(),
  user_id: z.number().int(),
  username: z.string(),
  token_id: z.number().int(),
  token_name: z.string(),
  model_name: z.string(),
  quota: z.number().int(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  use_time: z.number().int(),
  is_stream: z.boolean(),
  channel: z.number().int(),
  group: z.string(),
  other: z.string(),
  /**
   * Consume logs: the relay's request id, as its answer's X-Oneapi-Request-Id header and error
   * messages name it, so support can find a user's request; '' on other log types.
   */
  request_id: z.string(),
});
export type LogView = z.infer<typeof logViewSchema>;

/**
 * The billing details the relay writes into a consume log's `other` (JSON text). Every field may
 * be missing on older or other rows, and other fields may appear: read it leniently.
 */
export const logOtherSchema = z
  .object({
    /** First response time in ms; -1 when unknown. */
    frt: z.number().optional(),
    model_ratio: z.number().optional(),
    completion_ratio: z.number().optional(),
    group_ratio: z.number().optional(),
    /** Dollars per call for fixed-price models; -1 for ratio-billed calls. */
    model_price: z.number().optional(),
    cache_ratio: z.number().optional(),
    cache_tokens: z.number().optional(),
    /** Prompt tokens written to the provider's cache (Anthropic), billed at cache_creation_ratio. */
    cache_creation_tokens: z.number().optional(),
    cache_creation_ratio: z.number().optional(),
    /**
     * An image request, priced per image: model_price (USD per image; 0.0025 with model_ratio
     * when the model has only a ratio) x image_size_ratio x image_quality_ratio x image_count.
     */
    image: z.boolean().optional(),
    image_count: z.number().optional(),
    image_size_ratio: z.number().optional(),
    image_quality_ratio: z.number().optional(),
    /** Speech: the prompt tokens are the input's characters. */
    speech: z.boolean().optional(),
    /** Transcription or translation: the prompt tokens are the audio's minutes x 1,000 when billed by duration. */
    transcription: z.boolean().optional(),
    /** A realtime (WebSocket) session's response. */
    ws: z.boolean().optional(),
    /** Whether the token counts are the upstream's or the relay's estimate. */
    usage_source: z.enum(['upstream', 'estimated']).optional(),
    audio: z.boolean().optional(),
    audio_ratio: z.number().optional(),
    audio_completion_ratio: z.number().optional(),
    audio_input: z.number().optional(),
    audio_output: z.number().optional(),
    text_input: z.number().optional(),
    text_output: z.number().optional(),
    is_model_mapped: z.boolean().optional(),
    upstream_model_name: z.string().optional(),
    /** Admin rows only: the channels tried, in order. */
    admin_info: z
      .object({ use_channel: z.array(z.number().int()).optional() })
      .loose()
      .optional(),
  })
  .loose();
export type LogOther = z.infer<typeof logOtherSchema>;

/** GET /api/log/stat and /api/log/self/stat. */
export const logStatSchema = z.object({
  /** Consumption in the filtered time range. */
  quota: z.number().int(),
  /** Consume requests in the last 60 s. */
  rpm: z.number().int(),
  /** Prompt + completion tokens in the last 60 s. */
  tpm: z.number().int(),
});
export type LogStat = z.infer<typeof logStatSchema>;

const timestamp = z.coerce.number().int().min(0).max(253_402_300_799);
/** Filters of GET /api/log/ and /api/log/stat (admin); the self routes ignore username and channel. */
export const logQuerySchema = z.object({
  type: z.coerce.number().int().min(0).max(5).default(0),
  username: z.string().trim().max(64).default(''),
  token_name: z.string().trim().max(64).default(''),
  model_name: z.string().trim().max(MAX_MODEL_NAME_LENGTH).default(''),
  start_timestamp: timestamp.optional(),
  end_timestamp: timestamp.optional(),
  channel: z.coerce.number().int().min(0).default(0),
  group: z.string().trim().max(64).default(''),
});
export type LogQuery = z.infer<typeof logQuerySchema>;

/** GET /api/data/ (admin; `username` picks one user) and /api/data/self. */
export const dataQuerySchema = z.object({
  username: z.string().trim().max(64).default(''),
  start_timestamp: timestamp.optional(),
  end_timestamp: timestamp.optional(),
});
export type DataQuery = z.infer<typeof dataQuerySchema>;

/** One row of GET /api/data/: a model's usage in one hour. */
export const usageRowSchema = z.object({
  model_name: z.string(),
  /** Start of the hour, unix seconds. */
  created_at: z.number().int(),
  count: z.number().int(),
  quota: z.number().int(),
  token_used: z.number().int(),
});
export type UsageRow = z.infer<typeof usageRowSchema>;

/** One row of GET /api/pricing. quota_type 0 = by ratio per token, 1 = fixed price per call. */
export const pricingRowSchema = z.object({
  model_name: z.string(),
  quota_type: z.union([z.literal(0), z.literal(1)]),
  model_ratio: z.number(),
  model_price: z.number(),
  completion_ratio: z.number(),
  enable_groups: z.array(z.string()),
});
export type PricingRow = z.infer<typeof pricingRowSchema>;

/** The whole answer of GET /api/pricing: the rows as `data` and, beside them, the groups the caller may use. */
export const pricingAnswerSchema = envelopeSchema(z.array(pricingRowSchema)).extend({
  /** Ratios of the groups the caller may use (guests: the default group). */
  group_ratio: z.record(z.string(), z.number()),
  /** Those groups with their description. */
  usable_group: z.record(z.string(), z.string()),
});
export type PricingAnswer = z.infer<typeof pricingAnswerSchema>;

/** What the relay needs to check an sk- token without asking again (no key, no secret). */
export const resolvedTokenSchema = z.object({
  token_id: z.number().int(),
  user_id: z.number().int(),
  name: z.string(),
  status: z.number().int(),
  expired_time: z.number().int(),
  unlimited_quota: z.boolean(),
  model_limits_enabled: z.boolean(),
  model_limits: z.array(z.string()),
  allow_ips: z.array(z.string()),
  /** Refused client addresses (IPs and CIDR ranges); absent from an older publisher: none. */
  deny_ips: z.array(z.string()).default([]),
  /** The token's group, or the owner's group when the token has none. */
  group: z.string(),
  owner_status: z.number().int(),
  owner_group: z.string(),
  /** The owner's role: only admins may pin a channel with `sk-<key>-<channelId>`. */
  owner_role: z.number().int(),
  /** The key's usage limits; absent from an older publisher: none. */
  rate_limits: rateLimitsSchema.default({}),
  /** The text a refusal by the key's own limits answers with ('' or absent: the default text). */
  rate_limit_message: z.string().default(''),
  /** The Midjourney modes the key may draw in ([] or absent: every mode). */
  drawing_modes: z.array(z.enum(DRAWING_MODES)).default([]),
  /** The owner's own limits (the user editor's); the relay adds the group's and the default. */
  owner_rate_limits: rateLimitsSchema.default({}),
});
export type ResolvedToken = z.infer<typeof resolvedTokenSchema>;

/** The usage of one relayed request, as the relay reports it. */
export const usageRecordSchema = z.object({
  /** Unique per logical request (retries included): the ledger's idempotency key. */
  request_id: z.string().min(1).max(64),
  user_id: z.number().int().positive().max(2_147_483_647),
  /** 0 for playground requests, which bill the user only. */
  token_id: z.number().int().min(0).max(2_147_483_647),
  token_name: z.string().max(64),
  model_name: z.string().max(MAX_MODEL_NAME_LENGTH),
  group: z.string().max(64),
  channel_id: z.number().int().min(0).max(2_147_483_647),
  prompt_tokens: z.number().int().min(0).max(100_000_000),
  completion_tokens: z.number().int().min(0).max(100_000_000),
  /** The charge, already computed with the price helpers. */
  quota: quotaSchema,
  use_time_ms: z.number().int().min(0).max(86_400_000),
  is_stream: z.boolean(),
  /** Unix seconds when the request started. */
  created_at: z.number().int().min(0).max(253_402_300_799),
  content: z.string().max(1024).default(''),
  /** Billing details shown in the log (ratios, frt, admin_info...). */
  other: z.record(z.string(), z.unknown()).default({}),
});
export type UsageRecord = z.infer<typeof usageRecordSchema>;

export interface ParsedSkKey {
  /** The 48-character key, without sk-. */
  key: string;
  /** The channel an admin pinned with `sk-<key>-<channelId>`, when present. */
  channelId?: number;
}

const skKeyPattern = /^(?:sk-)?([A-Za-z0-9]{48})(?:-(\d{1,9}))?$/;

/**
 * Reads a key as clients send it (established 2.4): optional `Bearer `, optional `sk-`, the
 * 48-character key, optional `-<channelId>`. Anything else is null, so a malformed value never
 * reaches a database lookup.
 */
export function parseSkKey(raw: string): ParsedSkKey | null {
  const value = raw.trim().replace(/^Bearer\s+/i, '');
  const match = skKeyPattern.exec(value);
  if (!match) return null;
  const channelId = match[2] === undefined ? undefined : Number(match[2]);
  if (channelId !== undefined && channelId < 1) return null;
  return channelId === undefined ? { key: match[1]! } : { key: match[1]!, channelId };
}
