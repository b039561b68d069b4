import { ChannelStatus, ChannelType } from '@aigw/contracts';

/**
 * When a channel is disabled or enabled automatically: the explicit rules of the established
 * product (docs/compatibility.md section 3.8), in one pure function each, so every path (relay
 * failures, channel tests, slow tests) decides the same way. Its users' top complaints were
 * disables that never triggered, channels with auto-ban off being disabled anyway, and manual
 * disables undone (complaints 2 and 3, docs/compatibility.md section 7): each gate below answers
 * one of them.
 */

/** What went wrong, as the relay reports it (`relay.channel.failed`) or a channel test found it. */
export interface ChannelFailureFacts {
  status_code: number;
  error_code: string;
  error_type: string;
  message: string;
  /** From a channel test rather than traffic. */
  test: boolean;
}

export interface DisableInput {
  failure: ChannelFailureFacts;
  channel: { type: number; status: number; auto_ban: number };
  /** Option AutomaticDisableChannelEnabled. */
  automaticDisableEnabled: boolean;
  /** Option AutomaticDisableKeywords, one phrase per line. */
  keywords: string;
}

export type DisableDecision = { disable: true; reason: string } | { disable: false; why: string };

/** A test that answered but slower than ChannelDisableThreshold is reported with this error code. */
export const SLOW_TEST_CODE = 'slow';

// mj_no_available_account: a Midjourney proxy answered submit code 3, it has no Discord account left to draw with.
const disablingCodes = new Set(['invalid_api_key', 'account_deactivated', 'billing_not_active', 'mj_no_available_account']);
const disablingTypes = new Set(['insufficient_quota', 'insufficient_user_quota', 'authentication_error', 'permission_error', 'forbidden']);

export function keywordList(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * Whether a failure disables the channel (status 3), and why, as `status_reason` will show it.
 * The reason is recorded (other_info, a key's state, the notifier's alert), in English, with the
 * upstream's own words; `why` is for tests and logs. Neither is a console message.
 */
export function decideDisable(input: DisableInput): DisableDecision {
  const { failure, channel } = input;
  if (!input.automaticDisableEnabled) return { disable: false, why: 'automatic disabling is off' };
  if (channel.auto_ban !== 1) return { disable: false, why: 'the channel has auto-ban off' };
  // A disabled channel stays as it is: a manual disable keeps its status (and an auto-disabled one its first reason).
  if (channel.status !== ChannelStatus.Enabled) return { disable: false, why: 'the channel is not enabled' };

  const { status_code: status, error_code: code, error_type: type } = failure;
  if (failure.test && status === 0 && code === SLOW_TEST_CODE) return { disable: true, reason: failure.message || 'test slower than the threshold' };
  if (status === 401) return { disable: true, reason: describe('status 401', failure) };
  // Gemini answers a revoked or unauthorised key with 403 (docs/compatibility.md section 3.8); elsewhere 403 can be a per-request refusal.
  if (status === 403 && channel.type === ChannelType.Gemini) return { disable: true, reason: describe('status 403', failure) };
  if (disablingCodes.has(code)) return { disable: true, reason: describe(`error code ${code}`, failure) };
  if (disablingTypes.has(type)) return { disable: true, reason: describe(`error type ${type}`, failure) };
  const message = failure.message.toLowerCase();
  const keyword = keywordList(input.keywords).find((phrase) => message.includes(phrase));
  if (keyword) return { disable: true, reason: describe(`message contains "${keyword}"`, failure) };
  return { disable: false, why: 'the failure matches no disable rule' };
}

function describe(trigger: string, failure: ChannelFailureFacts): string {
  return failure.message ? `${trigger}: ${failure.message}` : trigger;
}

/** Whether a success re-enables the channel: only an automatic disable is undone, never a manual one. */
export function decideEnable(input: { status: number; automaticEnableEnabled: boolean }): boolean {
  return input.automaticEnableEnabled && input.status === ChannelStatus.AutoDisabled;
}

/** The failure a slow test stands for, or null when the threshold (seconds, 0 = never) is not exceeded. */
export function slowTestFailure(responseTimeMs: number, thresholdSeconds: number): ChannelFailureFacts | null {
  if (thresholdSeconds <= 0 || responseTimeMs <= thresholdSeconds * 1000) return null;
  // not a console message: the auto-disable reason recorded in other_info (a test's answer words its own, channels.test_slow).
  const message = `response time ${(responseTimeMs / 1000).toFixed(2)} s exceeds the threshold of ${thresholdSeconds} s`;
  return { status_code: 0, error_code: SLOW_TEST_CODE, error_type: '', message, test: true };
}
