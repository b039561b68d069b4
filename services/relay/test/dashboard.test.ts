import OpenAI from 'openai';
import type { DataSource } from 'typeorm';
import { waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { AccountEntity, TokenEntity } from '../../billing/src/entities/index';
import { UNLIMITED_LIMIT } from '../src/routes/dashboard';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

const QUOTA_PER_UNIT = 500_000;

/** The OpenAI-style billing dashboards chat clients read with their key (`/dashboard/billing/*`, also under `/v1`). */
describe('billing dashboards', () => {
  let world: RelayWorld;
  let billing: DataSource;
  let limitedKey: string;
  let limitedId: number;

  const get = async (path: string, key: string) => {
    const response = await fetch(`${world.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const figures = async () => ({
    token: await billing.getRepository(TokenEntity).findOneByOrFail({ id: limitedId }),
    account: await billing.getRepository(AccountEntity).findOneByOrFail({ user_id: world.user.id }),
  });
  /** Sets an option and waits until the relay answers as it says. */
  const setOptionAndWait = async (key: string, value: boolean, expected: number) => {
    await world.setOption(key, value);
    await waitFor(async () => (await get('/dashboard/billing/subscription', limitedKey)).body.hard_limit_usd === expected, 10_000, `${key} mirrored`);
  };

  beforeAll(async () => {
    world = await startRelayWorld('in-process');
    billing = await openBillingDatabase(world.gateway.env);
    await world.addChannel({ name: 'openai-type', models: 'mock-gpt' });
    await world.waitForModel('mock-gpt');
    const created = (
      await world.gateway.call('POST', '/api/token/', { session: world.user, body: { name: 'limited', remain_quota: 1_000_000, unlimited_quota: false } })
    ).json();
    limitedKey = created.data[0].key;
    limitedId = created.data[0].id;
    // Some use on the limited key, committed by the ledger.
    const client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: limitedKey, maxRetries: 0 });
    await client.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'spend a little' }] });
    await waitFor(async () => (await figures()).token.used_quota > 0, 10_000, 'usage committed');
  });
  afterAll(async () => {
    await billing?.destroy();
    await world?.close();
  });

  it('describes the key in money by default: its remaining plus used quota, and what it used in cents', async () => {
    const { token } = await figures();
    const limit = (token.remain_quota + token.used_quota) / QUOTA_PER_UNIT;
    expect(limit).toBe(2);
    for (const prefix of ['', '/v1']) {
      const subscription = await get(`${prefix}/dashboard/billing/subscription`, limitedKey);
      expect(subscription).toEqual({
        status: 200,
        body: {
          object: 'billing_subscription',
          has_payment_method: true,
          soft_limit_usd: limit,
          hard_limit_usd: limit,
          system_hard_limit_usd: limit,
          access_until: 0,
        },
      });
      const usage = await get(`${prefix}/dashboard/billing/usage`, limitedKey);
      expect(usage).toEqual({ status: 200, body: { object: 'list', total_usage: Math.round((token.used_quota / QUOTA_PER_UNIT) * 10_000) / 100 } });
    }
  });

  it('shows an unlimited key a limit no one reaches', async () => {
    const subscription = await get('/dashboard/billing/subscription', world.apiKey);
    expect(subscription.body.hard_limit_usd).toBe(UNLIMITED_LIMIT);
  });

  it('describes the owner with DisplayTokenStatEnabled off, and raw quota with DisplayInCurrencyEnabled off', async () => {
    const { account } = await figures();
    await setOptionAndWait('DisplayTokenStatEnabled', false, (account.quota + account.used_quota) / QUOTA_PER_UNIT);
    expect((await get('/dashboard/billing/usage', limitedKey)).body.total_usage).toBe(Math.round((account.used_quota / QUOTA_PER_UNIT) * 10_000) / 100);

    await setOptionAndWait('DisplayInCurrencyEnabled', false, account.quota + account.used_quota);
    expect((await get('/dashboard/billing/usage', limitedKey)).body.total_usage).toBe(account.used_quota * 100);
    await world.setOption('DisplayTokenStatEnabled', true);
    await world.setOption('DisplayInCurrencyEnabled', true);
  });

  it("refuses a call without a valid key in OpenAI's error shape", async () => {
    const response = await get('/dashboard/billing/subscription', 'sk-not-a-key');
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ error: { type: expect.any(String), message: expect.any(String) } });
  });
});
