import { publishEvent } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';

describe.each(backends)('accounts (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;

  beforeAll(async () => {
    gateway = await startGateway(backend);
    root = await gateway.login('root', ROOT_PASSWORD);
    for (const [key, value] of [
      ['QuotaForNewUser', 1000],
      ['QuotaForInvitee', 300],
      ['QuotaForInviter', 700000],
      ['QuotaPerUnit', 500000],
    ] as const) {
      expect((await gateway.call('PUT', '/api/option/', { session: root, body: { key, value } })).json().success).toBe(true);
    }
    // Billing applies options from events: wait until it has the grant settings.
    await waitFor(
      async () => (await gateway.call('GET', '/internal/billing/options', { session: root })).json().data.QuotaForInviter === 700000,
      5_000,
      'options mirrored',
    );
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const self = async (session: Session) => (await gateway.call('GET', '/api/user/self', { session })).json().data;
  const logs = async (session: Session, language = '') =>
    (await gateway.call('GET', '/api/log/self?p=1&page_size=100', { session, headers: { 'accept-language': language } })).json().data?.items ?? [];

  it('gives the super admin the starting balance and shows it on user rows', async () => {
    await waitFor(async () => (await self(root)).quota === 100_000_000, 5_000, 'root account');
    const rows = (await gateway.call('GET', '/api/user/', { session: root })).json().data.items;
    expect(rows.find((row: { id: number }) => row.id === root.id)).toMatchObject({ quota: 100_000_000 });
  });

  it('opens accounts with the new-user gift, and rewards invitee and inviter', async () => {
    await gateway.register('inviter', 'inviter-pass');
    const inviter = await gateway.login('inviter', 'inviter-pass');
    await waitFor(async () => (await self(inviter)).quota === 1000, 5_000, 'inviter account');
    const code = (await gateway.call('GET', '/api/user/aff', { session: inviter })).json().data;
    await gateway.register('invitee', 'invitee-pass', { aff_code: code });
    const invitee = await gateway.login('invitee', 'invitee-pass');
    await waitFor(async () => (await self(invitee)).quota === 1300, 5_000, 'invitee account');
    await waitFor(async () => (await self(inviter)).aff_count === 1, 5_000, 'inviter reward');
    expect(await self(inviter)).toMatchObject({ quota: 1000, aff_count: 1, aff_quota: 700000, aff_history_quota: 700000 });
  });

  it('grants once, even when the update event comes first and the registration arrives twice', async () => {
    const bus = gateway.env.infra.bus;
    const user = { user_id: 9001, username: 'ghost', display_name: 'ghost', email: '', role: 1, status: 1, group: 'default', rate_limits: {} };
    await publishEvent(bus, 'identity.user.updated', user);
    await publishEvent(bus, 'identity.user.registered', { ...user, inviter_id: 0, source: 'register' }, 'first-delivery');
    await publishEvent(bus, 'identity.user.registered', { ...user, inviter_id: 0, source: 'register' }, 'second-delivery');
    const balance = async () =>
      (await bus.request<{ balances: Record<string, { quota: number }> }>('billing.account.balances', { user_ids: [9001] })).balances['9001']?.quota;
    await waitFor(async () => (await balance()) === 1000, 5_000, 'granted');
    // Registrations are handled one at a time, in order: once a later one is, the second delivery was too.
    await publishEvent(bus, 'identity.user.registered', { ...user, user_id: 9002, username: 'sentinel', inviter_id: 0, source: 'register' });
    await waitFor(
      async () =>
        (await bus.request<{ balances: Record<string, { quota: number }> }>('billing.account.balances', { user_ids: [9002] })).balances['9002']?.quota === 1000,
      5_000,
      'the later registration handled',
    );
    expect(await balance()).toBe(1000);
  });

  it('transfers invite earnings: at least one unit, at most what is pending, atomically', async () => {
    const inviter = await gateway.login('inviter', 'inviter-pass');
    const small = (await gateway.call('POST', '/api/user/aff_transfer', { session: inviter, body: { quota: 1000 } })).json();
    expect(small).toEqual({ success: false, message: 'quota: minimum transfer amount is $1.00' });
    const transfer = (quota: number, language: string) =>
      gateway.call('POST', '/api/user/aff_transfer', { session: inviter, body: { quota }, headers: { 'accept-language': language } });
    expect((await transfer(1000, 'zh-CN')).json()).toEqual({ success: false, message: 'quota：最小划转额度为 $1.00' });
    expect((await transfer(800000, 'en-US')).json()).toEqual({ success: false, message: 'quota: more than your pending invite earnings' });
    expect((await transfer(800000, 'zh-CN')).json()).toEqual({ success: false, message: 'quota: 超出待划转的邀请收益' });
    for (const bad of [-1, 1.5, '600000', 2 ** 63]) {
      expect((await gateway.call('POST', '/api/user/aff_transfer', { session: inviter, body: { quota: bad } })).json().message).toMatch(/^quota/);
    }
    // Two concurrent transfers of 600000 against 700000 pending: exactly one wins.
    const languages = ['en-US', 'zh-CN'];
    const results = await Promise.all(languages.map((language) => transfer(600000, language)));
    const winners = results.flatMap((response, index) => (response.json().success ? [index] : []));
    expect(winners).toHaveLength(1);
    // The winner is told what was moved, in its console's language.
    expect(results[winners[0]!]!.json().message).toBe(['transferred $1.20', '已划转 $1.20 到余额'][winners[0]!]);
    expect(await self(inviter)).toMatchObject({ quota: 601000, aff_quota: 100000, aff_history_quota: 700000 });
  });

  it('lets an admin set a balance from the user editor, lower too, with a manage log', async () => {
    await gateway.register('edited', 'edited-pass');
    const edited = await gateway.login('edited', 'edited-pass');
    await waitFor(async () => (await self(edited)).quota === 1000, 5_000, 'edited account');
    expect((await gateway.call('PUT', '/api/user/', { session: root, body: { id: edited.id, quota: 5000 } })).json().success).toBe(true);
    expect((await self(edited)).quota).toBe(5000);
    expect((await gateway.call('PUT', '/api/user/', { session: root, body: { id: edited.id, quota: 200 } })).json().success).toBe(true);
    expect((await self(edited)).quota).toBe(200);
    // A negative balance is refused (issue 22.4); money is taken away with quota_delta.
    for (const bad of ['100', 1.5, 2 ** 63, Number.NaN, -200]) {
      const refused = (await gateway.call('PUT', '/api/user/', { session: root, body: { id: edited.id, quota: bad, display_name: 'changed' } })).json();
      expect(refused).toMatchObject({ success: false, message: expect.stringMatching(/^quota/) });
    }
    expect((await gateway.call('GET', `/api/user/${edited.id}`, { session: root })).json().data).toMatchObject({ quota: 200, display_name: 'edited' });
    const manage = (await logs(edited)).filter((row: { type: number }) => row.type === 3);
    // The default console (zh-CN) reads it in Chinese.
    expect(manage.map((row: { content: string }) => row.content)).toEqual(expect.arrayContaining([expect.stringMatching(/将额度从 \$0\.01 修改为 \$0\.00$/)]));
  });

  it('refuses online top-up while no payment gateway is configured, after checking the amount, and changes nothing', async () => {
    const before = await self(root);
    const refused = (await gateway.call('POST', '/api/user/amount', { session: root, body: { amount: 10, top_up_code: '' } })).json();
    expect(refused).toMatchObject({ success: false, message: 'the administrator has not turned on online top-up' });
    const pay = (
      await gateway.call('POST', '/api/user/pay', { session: root, body: { amount: 10, payment_method: 'zfb' }, headers: { 'accept-language': 'zh-CN' } })
    ).json();
    expect(pay).toMatchObject({ success: false, message: '管理员未开启在线充值！' });
    const bad = await gateway.call('POST', '/api/user/amount', { session: root, body: { amount: 0 } });
    expect(bad.json().message).toMatch(/amount/);
    expect((await self(root)).quota).toBe(before.quota);
  });
});
