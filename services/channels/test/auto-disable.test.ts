import { decideDisable, decideEnable, keywordList, slowTestFailure, type ChannelFailureFacts } from '../src/domain/auto-disable';

const keywords = 'Your credit balance is too low\nPermission denied\n\n  You exceeded your current quota  ';
const failure = (facts: Partial<ChannelFailureFacts>): ChannelFailureFacts => ({
  status_code: 500,
  error_code: '',
  error_type: '',
  message: '',
  test: false,
  ...facts,
});
const openAi = { type: 1, status: 1, auto_ban: 1 };

describe('decideDisable', () => {
  const table: Array<[string, Parameters<typeof decideDisable>[0], boolean]> = [
    ['401 disables', { failure: failure({ status_code: 401 }), channel: openAi, automaticDisableEnabled: true, keywords }, true],
    [
      '401 with an empty message still disables',
      { failure: failure({ status_code: 401, message: '' }), channel: openAi, automaticDisableEnabled: true, keywords },
      true,
    ],
    [
      '403 disables a Gemini channel',
      { failure: failure({ status_code: 403 }), channel: { ...openAi, type: 24 }, automaticDisableEnabled: true, keywords },
      true,
    ],
    ['403 does not disable an OpenAI channel', { failure: failure({ status_code: 403 }), channel: openAi, automaticDisableEnabled: true, keywords }, false],
    [
      'error code invalid_api_key',
      { failure: failure({ status_code: 400, error_code: 'invalid_api_key' }), channel: openAi, automaticDisableEnabled: true, keywords },
      true,
    ],
    [
      'error code account_deactivated',
      { failure: failure({ error_code: 'account_deactivated' }), channel: openAi, automaticDisableEnabled: true, keywords },
      true,
    ],
    [
      'error code billing_not_active',
      { failure: failure({ error_code: 'billing_not_active' }), channel: openAi, automaticDisableEnabled: true, keywords },
      true,
    ],
    [
      'a Midjourney proxy without an account (submit code 3)',
      {
        failure: failure({ status_code: 503, error_code: 'mj_no_available_account' }),
        channel: { ...openAi, type: 2 },
        automaticDisableEnabled: true,
        keywords,
      },
      true,
    ],
    [
      'error type insufficient_quota',
      { failure: failure({ status_code: 429, error_type: 'insufficient_quota' }), channel: openAi, automaticDisableEnabled: true, keywords },
      true,
    ],
    [
      'error type insufficient_user_quota',
      { failure: failure({ error_type: 'insufficient_user_quota' }), channel: openAi, automaticDisableEnabled: true, keywords },
      true,
    ],
    [
      'error type authentication_error',
      { failure: failure({ error_type: 'authentication_error' }), channel: openAi, automaticDisableEnabled: true, keywords },
      true,
    ],
    ['error type permission_error', { failure: failure({ error_type: 'permission_error' }), channel: openAi, automaticDisableEnabled: true, keywords }, true],
    ['error type forbidden', { failure: failure({ error_type: 'forbidden' }), channel: openAi, automaticDisableEnabled: true, keywords }, true],
    [
      'keyword, case-insensitive',
      { failure: failure({ message: 'Error: YOUR CREDIT BALANCE IS TOO LOW to continue' }), channel: openAi, automaticDisableEnabled: true, keywords },
      true,
    ],
    [
      'keyword line with spaces around it',
      { failure: failure({ message: 'you exceeded your current quota, check your plan' }), channel: openAi, automaticDisableEnabled: true, keywords },
      true,
    ],
    [
      'a slow test',
      { failure: failure({ status_code: 0, error_code: 'slow', test: true, message: 'too slow' }), channel: openAi, automaticDisableEnabled: true, keywords },
      true,
    ],
    [
      '"slow" from traffic is not a slow test',
      { failure: failure({ status_code: 0, error_code: 'slow', test: false }), channel: openAi, automaticDisableEnabled: true, keywords },
      false,
    ],
    [
      'a 500 is not a disable trigger',
      { failure: failure({ status_code: 500, message: 'upstream overloaded' }), channel: openAi, automaticDisableEnabled: true, keywords },
      false,
    ],
    [
      'a 429 rate limit is not a disable trigger',
      { failure: failure({ status_code: 429, error_type: 'rate_limit_exceeded' }), channel: openAi, automaticDisableEnabled: true, keywords },
      false,
    ],
    [
      'a network error (status 0) is not a disable trigger',
      { failure: failure({ status_code: 0, message: 'connect ECONNREFUSED' }), channel: openAi, automaticDisableEnabled: true, keywords },
      false,
    ],
    [
      'an empty keyword list matches nothing',
      { failure: failure({ message: 'permission denied' }), channel: openAi, automaticDisableEnabled: true, keywords: '\n\n' },
      false,
    ],
    ['global option off: never', { failure: failure({ status_code: 401 }), channel: openAi, automaticDisableEnabled: false, keywords }, false],
    ['auto_ban 0: never', { failure: failure({ status_code: 401 }), channel: { ...openAi, auto_ban: 0 }, automaticDisableEnabled: true, keywords }, false],
    [
      'manually disabled (2): never',
      { failure: failure({ status_code: 401 }), channel: { ...openAi, status: 2 }, automaticDisableEnabled: true, keywords },
      false,
    ],
    [
      'already auto-disabled (3): left as it is',
      { failure: failure({ status_code: 401 }), channel: { ...openAi, status: 3 }, automaticDisableEnabled: true, keywords },
      false,
    ],
  ];

  it.each(table)('%s', (_name, input, disables) => {
    expect(decideDisable(input).disable).toBe(disables);
  });

  it('names the trigger and the upstream message in the reason', () => {
    expect(
      decideDisable({ failure: failure({ status_code: 401, message: 'Incorrect API key' }), channel: openAi, automaticDisableEnabled: true, keywords }),
    ).toEqual({ disable: true, reason: 'status 401: Incorrect API key' });
    expect(decideDisable({ failure: failure({ message: 'Permission Denied for model' }), channel: openAi, automaticDisableEnabled: true, keywords })).toEqual({
      disable: true,
      reason: 'message contains "permission denied": Permission Denied for model',
    });
    expect(decideDisable({ failure: failure({ status_code: 401 }), channel: { ...openAi, auto_ban: 0 }, automaticDisableEnabled: true, keywords })).toEqual({
      disable: false,
      why: 'the channel has auto-ban off',
    });
  });
});

describe('decideEnable', () => {
  it.each([
    [3, true, true],
    [3, false, false],
    [2, true, false],
    [1, true, false],
  ])('status %i with automatic enabling %s: %s', (status, automaticEnableEnabled, enables) => {
    expect(decideEnable({ status, automaticEnableEnabled })).toBe(enables);
  });
});

describe('slowTestFailure', () => {
  it('is a slow-test failure only above a positive threshold', () => {
    expect(slowTestFailure(5_001, 5)).toEqual({
      status_code: 0,
      error_code: 'slow',
      error_type: '',
      test: true,
      message: 'response time 5.00 s exceeds the threshold of 5 s',
    });
    expect(slowTestFailure(5_000, 5)).toBeNull();
    expect(slowTestFailure(60_000, 0)).toBeNull();
  });

  it('reads keyword lines trimmed, lower-cased, blanks dropped', () => {
    expect(keywordList(keywords)).toEqual(['your credit balance is too low', 'permission denied', 'you exceeded your current quota']);
  });
});
