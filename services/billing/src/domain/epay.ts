import crypto from 'node:crypto';

/**
 * The epay (易支付) protocol, as the established product's gateways speak it (docs/compatibility.md
 * section 6): a purchase is a form posted to `<PayAddress>/submit.php`, and the gateway calls our
 * notify URL back with the outcome. Both are signed the same way: MD5 of the parameters sorted by
 * name, `name=value` joined with `&` (empty values, `sign` and `sign_type` left out), with the key
 * appended; lower-case hex. Pure functions, no I/O.
 */

export type EpayParams = Record<string, string>;

/** The notify status that means "paid"; anything else is acknowledged and ignored. */
export const TRADE_SUCCESS = 'TRADE_SUCCESS';

/** The text an epay gateway expects back: anything but `success` makes it retry. */
export const NOTIFY_SUCCESS = 'success';
export const NOTIFY_FAIL = 'fail';

export function epaySign(params: EpayParams, key: string): string {
  const signed = Object.keys(params)
    .filter((name) => name !== 'sign' && name !== 'sign_type' && params[name] !== '')
    .sort()
    .map((name) => `${name}=${params[name]}`)
    .join('&');
  return crypto.createHash('md5').update(`${signed}${key}`, 'utf8').digest('hex');
}

/**
 * Does the notify carry a valid signature under `key`? Constant-time comparison. An empty key
 * verifies nothing (rule R10): anyone could compute the MD5 of the parameters alone.
 */
export function epayVerify(params: EpayParams, key: string): boolean {
  if (!key) return false;
  const given = params.sign;
  if (typeof given !== 'string' || !/^[0-9a-fA-F]{32}$/.test(given)) return false;
  if (params.sign_type !== undefined && params.sign_type.toUpperCase() !== 'MD5') return false;
  return crypto.timingSafeEqual(Buffer.from(epaySign(params, key), 'hex'), Buffer.from(given.toLowerCase(), 'hex'));
}

export interface PurchaseInput {
  /** EpayId: our partner id at the gateway. */
  pid: string;
  /** The gateway's payment type: alipay, wxpay. */
  type: string;
  outTradeNo: string;
  notifyUrl: string;
  returnUrl: string;
  name: string;
  /** 2 decimals. */
  money: string;
}

/** The signed form fields of a purchase (what the console posts to submit.php). */
export function purchaseParams(input: PurchaseInput, key: string): EpayParams {
  const params: EpayParams = {
    pid: input.pid,
    type: input.type,
    out_trade_no: input.outTradeNo,
    notify_url: input.notifyUrl,
    return_url: input.returnUrl,
    name: input.name,
    money: input.money,
  };
  return { ...params, sign: epaySign(params, key), sign_type: 'MD5' };
}

const tradeAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `USR<uid>NO<6 random letters and digits><unix seconds>` (docs/compatibility.md section 6), the random part from crypto. */
export function newTradeNo(userId: number, nowSeconds: number): string {
  let random = '';
  for (let index = 0; index < 6; index++) random += tradeAlphabet[crypto.randomInt(tradeAlphabet.length)];
  return `USR${userId}NO${random}${nowSeconds}`;
}

/** Money text ('14.6', '14.60', '14') as hundredths; null when it is not a plain amount with at most 2 decimals. */
export function moneyCents(text: string | undefined): bigint | null {
  const match = /^(\d{1,15})(?:\.(\d{1,2}))?$/.exec(text?.trim() ?? '');
  if (!match) return null;
  return BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
}
