import type { DataSource } from 'typeorm';
import {
  epayPaymentTypes,
  groupRatio,
  LogType,
  msg,
  topUpQuote,
  TopUpStatus,
  type Page,
  type PaymentMethod,
  type TopUpOrderView,
  type TopUpQuote,
} from '@aigw/contracts';
import { escapeLike, isUniqueViolation, NotFoundError, param, queryRows, UserError, type AuthContext } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { AccountEntity, LedgerKind, TopUpEntity } from './entities/index.js';
import { adjustLiveUser, applyToAccount, ensureAccount, formatQuota, writeLog } from './ledger.js';
import { publishAccountUpdated, publishTopupCompleted } from './events.js';
import { epayVerify, moneyCents, newTradeNo, NOTIFY_FAIL, NOTIFY_SUCCESS, purchaseParams, TRADE_SUCCESS, type EpayParams } from './domain/epay.js';

/**
 * Online top-up through an epay-compatible gateway (docs/compatibility.md section 6). The order is
 * priced and stored pending when the user leaves for the gateway; it is credited exactly once, by
 * `completeOrder`: one transaction does the conditional update `pending -> success`, the ledger
 * entry (keyed by the trade number, unique) and the type-1 log, so concurrent or replayed notifies,
 * and an admin completing by hand at the same moment, credit it once in all.
 */

/** The product's refusal when PayAddress, EpayId or EpayKey is missing (docs/product.md section 8). */
export const TOPUP_DISABLED_MESSAGE = msg('topup.disabled');
export const EPAY_GATEWAY = 'epay';

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Online top-up is on when the gateway address, partner id and key are all set (the established rule). */
export function onlineTopUpEnabled(context: BillingContext): boolean {
  const { options } = context;
  return Boolean(options.get('PayAddress') && options.get('EpayId') && options.get('EpayKey'));
}

/**
 * Prices an amount for a user, refusing what the established product refuses: top-up not
 * enabled, an amount below MinTopUp (in the unit the user typed), a price of 0.01 or less.
 */
export async function quoteTopUp(context: BillingContext, caller: AuthContext, amount: number): Promise<TopUpQuote> {
  const { options } = context;
  if (!onlineTopUpEnabled(context)) throw new UserError(TOPUP_DISABLED_MESSAGE);
  const displayInCurrency = options.get('DisplayInCurrencyEnabled');
  const quotaPerUnit = options.get('QuotaPerUnit');
  const minimum = displayInCurrency ? options.get('MinTopUp') : options.get('MinTopUp') * quotaPerUnit;
  if (amount < minimum) throw new UserError(`amount: ${msg('topup.amount_minimum', { minimum: String(minimum) })}`);
  // Billing's own copy of the user's group (from identity's events); the session's until it arrived.
  const account = await context.db.getRepository(AccountEntity).findOneBy({ user_id: caller.userId });
  const group = account?.group ?? caller.group;
  let quote: TopUpQuote;
  try {
    quote = topUpQuote({
      amount,
      displayInCurrency,
      quotaPerUnit,
      price: options.get('Price'),
      groupRatio: groupRatio(options.get('TopupGroupRatio'), group),
    });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    if (error.message.startsWith('amount')) throw new UserError(`amount: ${msg('quota.too_large')}`);
    context.logger.error({ err: error }, 'the top-up price options are out of range');
    throw new UserError(msg('topup.price_misconfigured'));
  }
  if (quote.cents <= 1) throw new UserError(`amount: ${msg('topup.payable_too_small')}`);
  return quote;
}

export interface PaymentForm {
  /** The signed form fields. */
  params: EpayParams;
  /** Where the console posts them. */
  url: string;
}

/** Prices the amount, stores the pending order and returns the signed gateway form. */
export async function createOrder(context: BillingContext, caller: AuthContext, amount: number, method: PaymentMethod): Promise<PaymentForm> {
  const { options, db } = context;
  const quote = await quoteTopUp(context, caller, amount);
  const type = epayPaymentTypes[method];
  // Address options come without trailing slashes (the option codec strips them: complaint 12,
  // docs/compatibility.md section 7).
  const callbackBase = options.get('CustomCallbackAddress') || options.get('ServerAddress');
  for (let attempt = 1; ; attempt++) {
    const created = nowSeconds();
    const tradeNo = newTradeNo(caller.userId, created);
    try {
      await db.getRepository(TopUpEntity).insert({
        user_id: caller.userId,
        amount: quote.quota,
        money: quote.money,
        trade_no: tradeNo,
        gateway_trade_no: '',
        payment_method: type,
        gateway: EPAY_GATEWAY,
        status: TopUpStatus.Pending,
        created_at: created,
        completed_at: 0,
        completed_by: 0,
      });
    } catch (error) {
      // 62^6 random codes per user and second: a repeat is next to impossible, but never fatal.
      if (isUniqueViolation(error) && attempt < 3) continue;
      throw error;
    }
    const params = purchaseParams(
      {
        pid: options.get('EpayId'),
        type,
        outTradeNo: tradeNo,
        notifyUrl: `${callbackBase}/api/user/epay/notify`,
        returnUrl: `${options.get('ServerAddress')}/log`,
        name: `TUC${amount}`,
        money: quote.money,
      },
      options.get('EpayKey'),
    );
    return { params, url: `${options.get('PayAddress')}/submit.php` };
  }
}

export function toTopUpOrderView(row: TopUpEntity): TopUpOrderView {
  return {
    id: row.id,
    user_id: row.user_id,
    amount: row.amount,
    money: row.money,
    trade_no: row.trade_no,
    gateway_trade_no: row.gateway_trade_no,
    payment_method: row.payment_method,
    gateway: row.gateway,
    status: row.status,
    created_at: row.created_at,
    completed_at: row.completed_at,
    completed_by: row.completed_by,
  };
}

/** A page of orders, newest first; `keyword` matches the trade number by prefix. */
export async function listOrders(db: DataSource, query: { p: number; page_size: number; keyword?: string }): Promise<Page<TopUpOrderView>> {
  const builder = db
    .getRepository(TopUpEntity)
    .createQueryBuilder('top_up')
    .orderBy('top_up.id', 'DESC')
    .offset((query.p - 1) * query.page_size)
    .limit(query.page_size);
  const keyword = query.keyword?.trim();
  if (keyword) {
    const like = `${escapeLike(keyword)}%`;
    builder.andWhere(`top_up.trade_no LIKE :like ESCAPE '\\'`, { like });
  }
  const [rows, total] = await builder.getManyAndCount();
  return { items: rows.map(toTopUpOrderView), total, page: query.p, page_size: query.page_size };
}

interface Completion {
  /** 0 for the gateway's notify, else the admin's user id. */
  by: number;
  /** Only for an admin: written into the log. */
  adminUsername?: string;
  gatewayTradeNo?: string;
}

/**
 * Marks a pending order paid and credits it, exactly once: returns the order when this call
 * did it, null when the order was not pending (already credited, or not there).
 */
export async function completeOrder(context: BillingContext, tradeNo: string, completion: Completion): Promise<TopUpEntity | null> {
  const { db, options } = context;
  const completedAt = nowSeconds();
  const credited = await db.transaction(async (manager) => {
    // The claim: only the caller whose UPDATE changed the row credits it (on PostgreSQL a
    // concurrent one waits for the row, then finds it no longer pending).
    const claimed = await queryRows<{ id: number | string }>(
      manager,
      `UPDATE top_ups SET status = ${param(db, 1)}, completed_at = ${param(db, 2)}, completed_by = ${param(db, 3)}, gateway_trade_no = ${param(db, 4)} ` +
        `WHERE trade_no = ${param(db, 5)} AND status = ${param(db, 6)} AND gateway = ${param(db, 7)} RETURNING id`,
      [TopUpStatus.Success, completedAt, completion.by, completion.gatewayTradeNo ?? '', tradeNo, TopUpStatus.Pending, EPAY_GATEWAY],
    );
    if (claimed.length === 0) return null;
    const order = await manager.findOneByOrFail(TopUpEntity, { id: Number(claimed[0]!.id) });
    await ensureAccount(manager, order.user_id);
    // The trade number as the ledger's idempotency key: even a broken claim could not credit twice.
    const balance = await applyToAccount(manager, {
      userId: order.user_id,
      kind: LedgerKind.Topup,
      amount: order.amount,
      requestId: `topup:${order.trade_no}`,
    });
    if (balance === null) throw new Error(`account ${order.user_id} vanished while crediting top-up ${order.trade_no}`);
    await writeLog(manager, {
      userId: order.user_id,
      type: LogType.Topup,
      quota: order.amount,
      message: {
        id: completion.by ? 'topup.online_by_admin' : 'topup.online',
        params: {
          quota: formatQuota(order.amount, options.get('QuotaPerUnit')),
          money: String(order.money),
          ...(completion.by ? { admin: String(completion.adminUsername ?? completion.by) } : {}),
        },
      },
    });
    return order;
  });
  if (!credited) return null;
  // After the commit. The credit stands whatever happens here: a failed publish is logged, not
  // reported to the gateway (which would retry a notify that can no longer do anything).
  try {
    await adjustLiveUser(context.counters, credited.user_id, credited.amount);
    await publishAccountUpdated(context, credited.user_id);
    await publishTopupCompleted(context.bus, credited);
  } catch (error) {
    context.logger.error({ err: error, tradeNo }, 'top-up credited, but updating the live balance or publishing failed');
  }
  return credited;
}

/** An admin completes a pending order by hand (a paid order whose notify never arrived). */
export async function completeOrderByHand(context: BillingContext, admin: AuthContext, tradeNo: string): Promise<TopUpEntity> {
  const credited = await completeOrder(context, tradeNo, { by: admin.userId, adminUsername: admin.username });
  if (credited) {
    context.logger.info({ tradeNo, adminId: admin.userId }, 'top-up order completed by hand');
    return credited;
  }
  const order = await context.db.getRepository(TopUpEntity).findOneBy({ trade_no: tradeNo });
  if (!order) throw new NotFoundError(msg('topup.order_not_found'));
  throw new UserError(`trade_no: ${msg('topup.order_not_pending', { status: order.status })}`);
}

/**
 * The gateway's notify: answers `success` (nothing more to do: paid and credited, or a status
 * that is not a payment) or `fail` (refused; the gateway may retry). Nothing is credited unless
 * the signature verifies with a non-empty EpayKey, the status is TRADE_SUCCESS, the partner id
 * is ours, and the order exists, is an epay order, is pending, and its money is what was paid.
 */
export async function handleNotify(context: BillingContext, params: EpayParams): Promise<string> {
  const { options, logger } = context;
  const key = options.get('EpayKey');
  if (!key) {
    logger.warn('refused a payment notify: EpayKey is not set');
    return NOTIFY_FAIL;
  }
  if (!epayVerify(params, key)) {
    logger.warn('refused a payment notify: bad signature');
    return NOTIFY_FAIL;
  }
  const tradeNo = params.out_trade_no ?? '';
  if (params.pid !== options.get('EpayId')) {
    logger.warn({ tradeNo }, 'refused a payment notify: partner id is not ours');
    return NOTIFY_FAIL;
  }
  if (params.trade_status !== TRADE_SUCCESS) return NOTIFY_SUCCESS; // signed, but not a payment: acknowledge
  const order = await context.db.getRepository(TopUpEntity).findOneBy({ trade_no: tradeNo });
  if (!order || order.gateway !== EPAY_GATEWAY) {
    logger.warn({ tradeNo }, 'refused a payment notify: no such epay order');
    return NOTIFY_FAIL;
  }
  const paid = moneyCents(params.money);
  if (paid === null || paid !== moneyCents(order.money)) {
    logger.error({ tradeNo, expected: order.money }, 'refused a payment notify: the money paid differs from the order');
    return NOTIFY_FAIL;
  }
  if (order.status === TopUpStatus.Success) return NOTIFY_SUCCESS; // a replay: credited already
  if (order.status !== TopUpStatus.Pending) {
    logger.error({ tradeNo, status: order.status }, 'refused a payment notify: the order is not pending');
    return NOTIFY_FAIL;
  }
  const credited = await completeOrder(context, tradeNo, { by: 0, gatewayTradeNo: (params.trade_no ?? '').slice(0, 64) });
  // Not credited here: a concurrent notify or an admin completed it in between. Either way it is paid.
  if (credited) logger.info({ tradeNo, userId: credited.user_id, quota: credited.amount }, 'online top-up credited');
  return NOTIFY_SUCCESS;
}
