import type zh from '../zh-CN/wallet';
import type { MessagesOf } from '../types';

export default {
  'pages.wallet.redeem.empty': 'Please enter the redemption code',
  'pages.wallet.redeem.done': 'Redeemed! Quota added: {quota}',
  'pages.wallet.link.missing': 'The super admin has not set a recharge link',
  'pages.wallet.online.disabled': 'The administrator has not enabled online top-up',
  'pages.wallet.amount.minimum': 'The top-up quantity cannot be less than {minimum}',
  'pages.wallet.pay.failed': 'Request failed',
  'pages.wallet.balance': 'Balance',
  'pages.wallet.used': 'Historical consumption',
  'pages.wallet.requests': 'Requests',
  'pages.wallet.redeem.title': 'Redeem a code',
  'pages.wallet.redeem.placeholder': 'Enter a redemption code',
  'pages.wallet.redeem.submit': 'Redeem',
  'pages.wallet.link': 'Get a code',
  'pages.wallet.online.title': 'Online top-up',
  'pages.wallet.online.hint': 'Quantities are in dollars, at least {minimum}; the amount payable is computed by the server at the current price.',
  'pages.wallet.amount': 'Top-up quantity',
  'pages.wallet.confirm.title': 'Confirm top-up',
  'pages.wallet.confirm.ok': 'Pay',
  'pages.wallet.confirm.quantity': 'Quantity',
  'pages.wallet.confirm.payable': 'Amount payable',
  'pages.wallet.confirm.method': 'Payment method',
  'pages.wallet.pay.zfb': 'Alipay',
  'pages.wallet.pay.wx': 'WeChat Pay',
} satisfies MessagesOf<typeof zh>;
