import { localizeMessage } from '@aigw/contracts';
import { keyProblem as refusal } from '../src/domain/channel-key';

/** The refusal in English (null for a good key). */
const keyProblem = (type: number, key: string, other: string) => {
  const problem = refusal(type, key, other);
  return problem === null ? null : localizeMessage(problem, 'en-US');
};

/** The key formats of the newer channel types the relay calls with a structured key (Coze 49, Codex 57). */
describe('keyProblem: Coze and Codex keys', () => {
  const codexKey = (fields: Record<string, unknown>) => JSON.stringify({ access_token: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln', account_id: 'acc-1', ...fields });

  it.each([
    [49, 'pat_OYDacMzM3WyOWV3Dtj2bHRMymzxP'],
    [57, codexKey({})],
    [57, codexKey({ refresh_token: 'rt_1', id_token: 'x', email: 'a@b.c', expired: '2026-01-01T00:00:00Z', last_refresh: '2025-12-22T00:00:00Z' })],
    // The video task types take whatever key their platform issues.
    [50, 'access-key|secret-key'],
  ])('takes a good key for type %i', (type, key) => {
    expect(keyProblem(type, key, '')).toBeNull();
  });

  it('names the missing fields of a Codex key, and refuses one that is not a JSON object', () => {
    expect(keyProblem(57, codexKey({ account_id: '' }), '')).toMatch(
      /^key: a Codex key is the ChatGPT account's JSON with access_token and account_id.*; missing account_id$/,
    );
    expect(keyProblem(57, JSON.stringify({ refresh_token: 'rt_1' }), '')).toMatch(/missing access_token, account_id$/);
    expect(localizeMessage(refusal(57, JSON.stringify({ refresh_token: 'rt_1' }), '')!, 'zh-CN')).toMatch(/；缺少 access_token, account_id$/);
    expect(keyProblem(57, 'sk-not-json', '')).toMatch(/^key: a Codex key is the ChatGPT account's JSON/);
    expect(keyProblem(57, '["access_token"]', '')).toMatch(/^key: a Codex key/);
  });

  it('refuses a Coze key that is not one token', () => {
    expect(keyProblem(49, 'pat_one two', '')).toBe('key: a Coze key is one access token (a personal access token, pat_...)');
  });
});
