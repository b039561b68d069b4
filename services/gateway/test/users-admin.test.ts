import { backends, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from './support/gateway';

describe.each(backends)('user management (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let admin: Session;
  let user: Session;

  beforeAll(async () => {
    gateway = await startGateway(backend);
    root = await gateway.login('root', ROOT_PASSWORD);
    for (const name of ['admin1', 'user1', 'user2', 'user3']) await gateway.register(name, `${name}-password`);
    admin = await gateway.login('admin1', 'admin1-password');
    user = await gateway.login('user1', 'user1-password');
    expect((await gateway.call('POST', '/api/user/manage', { session: root, body: { id: admin.id, action: 'promote' } })).json()).toEqual({
      success: true,
      message: '',
      data: { role: 10, status: 1 },
    });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const manage = (session: Session, id: number, action: string, language = 'en-US') =>
    gateway.call('POST', '/api/user/manage', { session, body: { id, action }, headers: { 'accept-language': language } });
  /** A row as root sees it in the list (root cannot open its own level with GET /api/user/:id). */
  const getUser = async (id: number) =>
    ((await gateway.call('GET', '/api/user/?p=1&page_size=100', { session: root })).json().data.items as Array<{ id: number }>).find(
      (row) => row.id === id,
    ) as Record<string, unknown>;

  it('lists users in pages; p=0 and p=1 are both the first page', async () => {
    const first = (await gateway.call('GET', '/api/user/?p=0&page_size=2', { session: root })).json();
    const one = (await gateway.call('GET', '/api/user/?p=1&page_size=2', { session: root })).json();
    const second = (await gateway.call('GET', '/api/user/?p=2&page_size=2', { session: root })).json();
    expect(first.data).toMatchObject({ total: 5, page: 1, page_size: 2 });
    expect(first.data.items.map((row: { id: number }) => row.id)).toEqual(one.data.items.map((row: { id: number }) => row.id));
    expect(second.data.items).toHaveLength(2);
    expect(first.data.items[0]).toMatchObject({ quota: 0, used_quota: 0, request_count: 0, aff_count: 0, DeletedAt: null });
    expect(JSON.stringify(first)).not.toMatch(/password|access_token/);
    const bad = (await gateway.call('GET', '/api/user/?p=-1', { session: root })).json();
    expect(bad).toMatchObject({ success: false, message: expect.stringMatching(/p/) });
  });

  it('searches by id, username, display name and email, and filters by group', async () => {
    const byName = (await gateway.call('GET', '/api/user/search?keyword=user', { session: root })).json().data;
    // "Root User" matches on its display name.
    expect(byName.items.map((row: { username: string }) => row.username).sort()).toEqual(['root', 'user1', 'user2', 'user3']);
    const byId = (await gateway.call('GET', `/api/user/search?keyword=${user.id}`, { session: root })).json().data;
    expect(byId.items.map((row: { id: number }) => row.id)).toContain(user.id);
    const wildcard = (await gateway.call('GET', '/api/user/search?keyword=%25', { session: root })).json().data;
    expect(wildcard.total).toBe(0);
    await gateway.call('PUT', '/api/user/', { session: root, body: { id: user.id, group: 'vip' } });
    const vip = (await gateway.call('GET', '/api/user/search?keyword=&group=vip', { session: root })).json().data;
    expect(vip.items.map((row: { id: number }) => row.id)).toEqual([user.id]);
  });

  it('refuses ordinary users on admin routes with 403, changing nothing', async () => {
    for (const [method, url, body] of [
      ['GET', '/api/user/', undefined],
      ['GET', '/api/user/search?keyword=a', undefined],
      ['GET', `/api/user/${admin.id}`, undefined],
      ['POST', '/api/user/', { username: 'sneaky', password: 'sneaky-pass' }],
      ['PUT', '/api/user/', { id: admin.id, display_name: 'hacked' }],
      ['POST', '/api/user/manage', { id: admin.id, action: 'disable' }],
      ['GET', '/api/option/', undefined],
      ['PUT', '/api/option/', { key: 'SystemName', value: 'hacked' }],
      ['GET', '/api/group/', undefined],
    ] as const) {
      const response = await gateway.call(method, url, { session: user, body });
      expect({ url, status: response.statusCode }).toEqual({ url, status: 403 });
      expect(response.json()).toEqual({ success: false, message: 'insufficient permissions' });
    }
    expect(await getUser(admin.id)).toMatchObject({ display_name: 'admin1', status: 1 });
    expect((await gateway.call('GET', '/api/user/search?keyword=sneaky', { session: root })).json().data.total).toBe(0);
  });

  it('lets an admin manage ordinary users but not admins or root', async () => {
    const target = await gateway.login('user2', 'user2-password');
    expect((await gateway.call('GET', `/api/user/${target.id}`, { session: admin })).json()).toMatchObject({ success: true, data: { username: 'user2' } });
    expect((await manage(admin, target.id, 'disable')).json()).toEqual({ success: true, message: '', data: { role: 1, status: 2 } });
    await waitFor(async () => (await gateway.call('GET', '/api/user/self', { session: target })).statusCode === 401, 5_000, 'banned session revoked');
    const banned = (await gateway.call('POST', '/api/user/login', { body: { username: 'user2', password: 'user2-password' } })).json();
    expect(banned).toEqual({ success: false, message: 'the user has been banned' });
    expect((await manage(admin, target.id, 'enable')).json().data).toEqual({ role: 1, status: 1 });

    for (const [id, action] of [
      [root.id, 'disable'],
      [root.id, 'delete'],
      [admin.id, 'disable'],
    ] as const) {
      const response = await manage(admin, id, action);
      expect(response.statusCode).toBe(403);
    }
    expect((await manage(admin, target.id, 'promote')).statusCode).toBe(403);
    expect((await gateway.call('GET', `/api/user/${root.id}`, { session: admin })).statusCode).toBe(403);
    expect((await gateway.call('PUT', '/api/user/', { session: admin, body: { id: root.id, display_name: 'x' } })).statusCode).toBe(403);
    expect((await gateway.call('POST', '/api/user/', { session: admin, body: { username: 'newadmin', password: 'newadmin-pass', role: 10 } })).statusCode).toBe(
      403,
    );
    expect(await getUser(root.id)).toMatchObject({ status: 1, role: 100, display_name: 'Root User' });
  });

  it('lets root promote and demote, and protects root from everyone', async () => {
    const target = await gateway.login('user3', 'user3-password');
    expect((await manage(root, target.id, 'promote')).json().data).toEqual({ role: 10, status: 1 });
    expect((await manage(root, target.id, 'promote')).json().message).toBe('the user is already an admin');
    expect((await manage(root, target.id, 'promote', 'zh-CN')).json().message).toBe('该用户已经是管理员');
    expect((await manage(root, target.id, 'demote')).json().data).toEqual({ role: 1, status: 1 });
    for (const action of ['demote', 'disable', 'delete']) expect((await manage(root, root.id, action)).statusCode).toBe(403);
    expect((await manage(root, root.id, 'disable')).json().message).toBe('no permission to manage a user of the same or a higher level');
    expect((await manage(root, root.id, 'disable', 'zh-CN')).json().message).toBe('无权管理同级或更高级别的用户');
    expect((await manage(admin, user.id, 'promote', 'zh-CN')).json().message).toBe('只有超级管理员可以将用户提升为管理员');
    expect((await manage(root, 9999, 'disable')).json()).toEqual({ success: false, message: 'user not found' });
    expect((await manage(root, 9999, 'disable', 'zh-CN')).json()).toEqual({ success: false, message: '用户不存在' });
    // Ids beyond the 32-bit columns are bad input, not a database error.
    expect((await manage(root, 99_999_999_999, 'disable')).json()).toMatchObject({ success: false, message: expect.stringMatching(/^id is too large/) });
    expect((await gateway.call('GET', '/api/user/99999999999', { session: root })).json()).toMatchObject({
      success: false,
      message: expect.stringMatching(/id is too large/),
    });
    expect((await manage(root, target.id, 'explode')).json()).toMatchObject({ success: false, message: expect.stringMatching(/^action/) });
  });

  it('creates and edits users, with the level rules and unique names', async () => {
    expect(
      (await gateway.call('POST', '/api/user/', { session: admin, body: { username: 'created', password: 'created-pass', display_name: 'Made' } })).json()
        .success,
    ).toBe(true);
    // Each failing field named once, in the caller's language (not the message again behind each name).
    const empty = (language: string) =>
      gateway.call('POST', '/api/user/', { session: admin, body: { username: '', password: '' }, headers: { 'accept-language': language } });
    expect((await empty('en-US')).json().message).toBe('username and password cannot be empty');
    expect((await empty('zh-CN')).json().message).toBe('用户名和密码不能为空');
    const again = (language: string) =>
      gateway.call('POST', '/api/user/', { session: admin, body: { username: 'created', password: 'created-pass' }, headers: { 'accept-language': language } });
    expect((await again('en-US')).json().message).toBe('username: already taken');
    expect((await again('zh-CN')).json().message).toBe('username: 该用户名已被占用');
    // Only the product's roles: an odd level would pass admin checks yet could never be demoted.
    for (const role of [50, 0, -5, 9]) {
      const odd = (await gateway.call('POST', '/api/user/', { session: root, body: { username: `odd${role}`, password: 'odd-password', role } })).json();
      expect(odd).toEqual({ success: false, message: 'role: must be 1 (user), 10 (admin) or 100 (super admin)' });
    }
    const tooHigh = (language: string) =>
      gateway.call('POST', '/api/user/', {
        session: admin,
        body: { username: 'peer', password: 'peer-password', role: 10 },
        headers: { 'accept-language': language },
      });
    expect((await tooHigh('en-US')).json().message).toBe('cannot create a user with a role at or above your own');
    expect((await tooHigh('zh-CN')).json().message).toBe('不能创建与自己同级或更高级别的用户');
    const quota = (body: Record<string, unknown>, language = 'en-US') =>
      gateway.call('PUT', '/api/user/', { session: root, body: { id: user.id, ...body }, headers: { 'accept-language': language } });
    expect((await quota({ quota: 1.5 })).json().message).toBe('quota must be an integer');
    expect((await quota({ quota: 1.5 }, 'zh-CN')).json().message).toBe('quota 必须是整数');
    expect((await quota({ quota: 1, quota_delta: 1 }, 'zh-CN')).json().message).toBe('quota_delta: 不能与 quota 同时提交');
    const created = await gateway.login('created', 'created-pass');
    const edit = await gateway.call('PUT', '/api/user/', {
      session: admin,
      body: { id: created.id, display_name: 'Edited', password: 'changed-pass', role: 100 },
    });
    expect(edit.json().success).toBe(true);
    expect(await getUser(created.id)).toMatchObject({ display_name: 'Edited', role: 1 });
    await waitFor(
      async () => (await gateway.call('GET', '/api/user/self', { session: created })).statusCode === 401,
      5_000,
      'sessions end on admin password change',
    );
    await gateway.login('created', 'changed-pass');
  });

  it('deregisters through manage: tag stays on the row, login refused', async () => {
    const target = await gateway.login('user2', 'user2-password');
    expect((await manage(root, target.id, 'delete')).json().success).toBe(true);
    expect((await getUser(target.id)).DeletedAt).toEqual(expect.any(String));
    expect((await gateway.call('POST', '/api/user/login', { body: { username: 'user2', password: 'user2-password' } })).json().success).toBe(false);
    expect((await manage(root, target.id, 'enable')).json().message).toBe('the user has been deregistered');
    expect((await manage(root, target.id, 'enable', 'zh-CN')).json().message).toBe('该用户已注销');
  });

  it('lists groups for admins and the usable groups for the user', async () => {
    expect((await gateway.call('GET', '/api/group/', { session: admin })).json().data).toEqual(['default', 'vip', 'svip']);
    const groups = (await gateway.call('GET', '/api/user/self/groups', { session: user })).json().data;
    expect(groups).toEqual({ default: { ratio: 1, desc: 'default group' }, vip: { ratio: 1, desc: 'vip group' } });
  });
});

describe('access is checked before input', () => {
  it('answers 401/403 to invalid bodies on admin routes, never a validation message', async () => {
    const gateway = await startGateway('in-process');
    try {
      await gateway.register('plain', 'plain-password');
      const user = await gateway.login('plain', 'plain-password');
      const anonymous = await gateway.call('POST', '/api/user/manage', { body: { id: 'x' } });
      expect(anonymous.statusCode).toBe(401);
      const ordinary = await gateway.call('PUT', '/api/option/', { session: user, body: { nonsense: true } });
      expect(ordinary.statusCode).toBe(403);
    } finally {
      await gateway.close();
    }
  });
});
