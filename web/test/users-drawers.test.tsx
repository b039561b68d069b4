import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Role, type User } from '@aigw/contracts';
import { rateLimitsChange, toQuota } from '../src/features/users/EditUserForm';
import { makeUser, setupFakeApi } from './render';
import { buttonNamed, chooseOption, drawerTitled, findRowOf, renderUsers, setupUser, userPage } from './users-support';

const fake = setupFakeApi();
beforeEach(() => {
  fake.ok('GET', '/api/group/', ['default', 'vip']);
});

const listCalls = () => fake.callsTo('GET', '/api/user/');

describe('add-user drawer', () => {
  async function openAddUser() {
    fake.ok('GET', '/api/user/', userPage([makeUser()]));
    renderUsers();
    await screen.findByText('alice');
    const user = setupUser();
    await user.click(buttonNamed(/添加用户/));
    return { user, drawer: within(await drawerTitled('添加用户')) };
  }

  it('says username and password cannot be empty', async () => {
    const { user, drawer } = await openAddUser();
    await user.type(drawer.getByLabelText('显示名称'), 'Someone');
    await user.click(buttonNamed(/^提\s*交$/));
    expect(await drawer.findAllByText('用户名和密码不能为空！')).toHaveLength(2);

    // A blank username counts as empty.
    await user.type(drawer.getByLabelText('用户名'), '   ');
    await user.type(drawer.getByLabelText('密码'), 'password1');
    await user.click(buttonNamed(/^提\s*交$/));
    // The password is in; only the username is still flagged (the explain text leaves with an animation).
    const itemOf = (label: string) => drawer.getByLabelText(label).closest('.ant-form-item');
    await waitFor(() => expect(itemOf('密码')).not.toHaveClass('ant-form-item-has-error'));
    expect(itemOf('用户名')).toHaveClass('ant-form-item-has-error');
    expect(fake.callsTo('POST', '/api/user/')).toHaveLength(0);
  });

  it('checks the username and password lengths from the contracts', async () => {
    const { user, drawer } = await openAddUser();
    await user.type(drawer.getByLabelText('用户名'), 'thirteenchars');
    await user.type(drawer.getByLabelText('密码'), 'short');
    await user.click(buttonNamed(/^提\s*交$/));
    expect(await drawer.findByText('用户名最多 12 个字符')).toBeInTheDocument();
    expect(await drawer.findByText('密码长度不得小于 8 位！')).toBeInTheDocument();

    await user.clear(drawer.getByLabelText('密码'));
    await user.type(drawer.getByLabelText('密码'), 'a'.repeat(21));
    expect(await drawer.findByText('密码长度不得超过 20 位！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/')).toHaveLength(0);
    expect(drawer.getByLabelText('密码')).toHaveAttribute('placeholder', '请输入密码，8 到 20 位');
  });

  it('posts username, display name and password, then closes and reloads the table', async () => {
    fake.ok('POST', '/api/user/');
    const { user, drawer } = await openAddUser();
    await user.type(drawer.getByLabelText('用户名'), ' newbie ');
    await user.type(drawer.getByLabelText('显示名称'), 'New Bie');
    await user.type(drawer.getByLabelText('密码'), 'password1');
    await user.click(buttonNamed(/^提\s*交$/));

    expect(await screen.findByText('用户账户创建成功！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/')[0]!.body).toEqual({ username: 'newbie', display_name: 'New Bie', password: 'password1' });
    await waitFor(() => expect(listCalls()).toHaveLength(2));
    await waitFor(() => expect(document.querySelector('.ant-drawer-open')).toBeNull());
  });

  it('shows the server refusal and keeps the drawer open', async () => {
    fake.fail('POST', '/api/user/', 'username: already taken');
    const { user, drawer } = await openAddUser();
    await user.type(drawer.getByLabelText('用户名'), 'alice');
    await user.type(drawer.getByLabelText('密码'), 'password1');
    await user.click(buttonNamed(/^提\s*交$/));
    expect(await screen.findByText('username: already taken')).toBeInTheDocument();
    expect(screen.queryByText('用户账户创建成功！')).not.toBeInTheDocument();
    expect(drawer.getByLabelText('用户名')).toHaveValue('alice');
    expect(document.querySelector('.ant-drawer-open')).not.toBeNull();
  });
});

describe('edit-user drawer', () => {
  const alice = makeUser({
    id: 2,
    username: 'alice',
    display_name: 'Alice',
    group: 'vip',
    quota: 1_000_000,
    email: 'alice@example.com',
    github_id: 'alice-gh',
    wechat_id: 'wx-alice',
    telegram_id: '',
    role: Role.Common,
  });

  async function openEdit(user: User = alice) {
    fake.ok('GET', '/api/user/', userPage([user]));
    fake.ok('GET', `/api/user/${user.id}`, user);
    renderUsers();
    const events = setupUser();
    await events.click(buttonNamed(/^编\s*辑$/, await findRowOf(user.username)));
    const drawer = within(await drawerTitled('编辑用户'));
    await drawer.findByDisplayValue(user.username);
    return { events, drawer };
  }

  it('loads the user and shows the bindings read-only', async () => {
    const { drawer } = await openEdit();
    expect(fake.callsTo('GET', '/api/user/2')).toHaveLength(1);
    expect(drawer.getByLabelText('用户名')).toHaveValue('alice');
    expect(drawer.getByLabelText('显示名称')).toHaveValue('Alice');
    expect(drawer.getByLabelText('密码')).toHaveValue('');
    expect(drawer.getByLabelText('密码')).toHaveAttribute('placeholder', '请输入新的密码，最短 8 位');
    expect(drawer.getByText('留空则不修改密码')).toBeInTheDocument();
    expect(drawer.getByTitle('vip')).toBeInTheDocument();
    expect(drawer.getByLabelText('剩余额度')).toHaveValue('1000000');
    expect(drawer.getByText('折合：$2.00')).toBeInTheDocument();

    const bindings: Array<[string, string]> = [
      ['已绑定的 GitHub 账户', 'alice-gh'],
      ['已绑定的微信账户', 'wx-alice'],
      ['已绑定的邮箱账户', 'alice@example.com'],
      ['已绑定的 Telegram 账户', ''],
    ];
    for (const [label, value] of bindings) {
      const input = drawer.getByLabelText(label);
      expect(input).toHaveValue(value);
      expect(input).toHaveAttribute('readonly');
    }
    expect(drawer.getByLabelText('已绑定的 Telegram 账户')).toHaveAttribute(
      'placeholder',
      '此项只读，需要用户通过个人设置页面的相关绑定按钮进行绑定，不可直接修改',
    );
  });

  it('puts the fields with the id and an integer quota with the balance it replaces, leaving an empty password out', async () => {
    fake.ok('PUT', '/api/user/');
    const { events, drawer } = await openEdit();
    fireEvent.change(drawer.getByLabelText('显示名称'), { target: { value: 'Alice B' } });
    await chooseOption(drawer.getByLabelText('分组'), 'default', events);
    fireEvent.change(drawer.getByLabelText('剩余额度'), { target: { value: '2500000' } });
    await events.click(buttonNamed(/^提\s*交$/));

    expect(await screen.findByText('用户信息更新成功！')).toBeInTheDocument();
    const body = fake.callsTo('PUT', '/api/user/')[0]!.body;
    expect(body).toEqual({ id: 2, username: 'alice', display_name: 'Alice B', group: 'default', quota: 2_500_000, expected_quota: 1_000_000 });
    expect(Number.isInteger(body.quota)).toBe(true);
    await waitFor(() => expect(listCalls()).toHaveLength(2));
  });

  it('sends a fractional quota as a whole number', async () => {
    fake.ok('PUT', '/api/user/');
    const { events, drawer } = await openEdit();
    await events.clear(drawer.getByLabelText('剩余额度'));
    await events.type(drawer.getByLabelText('剩余额度'), '1234.4');
    await events.click(buttonNamed(/^提\s*交$/));
    await waitFor(() => expect(fake.callsTo('PUT', '/api/user/')).toHaveLength(1));
    expect(fake.callsTo('PUT', '/api/user/')[0]!.body.quota).toBe(1234);
  });

  it('sends a new password and checks its length', async () => {
    fake.ok('PUT', '/api/user/');
    const { events, drawer } = await openEdit();
    await events.type(drawer.getByLabelText('密码'), 'short');
    await events.click(buttonNamed(/^提\s*交$/));
    expect(await drawer.findByText('密码长度不得小于 8 位！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/user/')).toHaveLength(0);

    await events.type(drawer.getByLabelText('密码'), '-but-fine');
    await events.click(buttonNamed(/^提\s*交$/));
    await waitFor(() => expect(fake.callsTo('PUT', '/api/user/')).toHaveLength(1));
    expect(fake.callsTo('PUT', '/api/user/')[0]!.body).toMatchObject({ id: 2, password: 'short-but-fine' });
    expect(fake.callsTo('PUT', '/api/user/')[0]!.body).not.toHaveProperty('quota');
  });

  it('requires a username of at most 12 characters', async () => {
    const { events, drawer } = await openEdit();
    await events.clear(drawer.getByLabelText('用户名'));
    await events.click(buttonNamed(/^提\s*交$/));
    expect(await drawer.findByText('用户名不能为空')).toBeInTheDocument();
    await events.type(drawer.getByLabelText('用户名'), 'thirteenchars');
    expect(await drawer.findByText('用户名最多 12 个字符')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/user/')).toHaveLength(0);
  });

  it('adds a negative amount in the add-quota dialog and sends it as a delta', async () => {
    fake.ok('PUT', '/api/user/');
    const { events, drawer } = await openEdit();
    await events.click(buttonNamed(/^添加额度$/));
    const modal = (await screen.findByText('添加额度', { selector: '.ant-modal-title' })).closest('.ant-modal') as HTMLElement;
    const dialog = within(modal);
    expect(dialog.getByText('新额度：1000000 + 0 = 1000000')).toBeInTheDocument();

    await events.type(dialog.getByLabelText('需要添加的额度（支持负数）'), '-250000');
    expect(await dialog.findByText('新额度：1000000 + -250000 = 750000')).toBeInTheDocument();
    await events.click(buttonNamed(/^确\s*定$/, modal));

    await waitFor(() => expect(drawer.getByLabelText('剩余额度')).toHaveValue('750000'));
    expect(drawer.getByText('折合：$1.50')).toBeInTheDocument();
    await events.click(buttonNamed(/^提\s*交$/));
    await waitFor(() => expect(fake.callsTo('PUT', '/api/user/')).toHaveLength(1));
    expect(fake.callsTo('PUT', '/api/user/')[0]!.body).toMatchObject({ quota_delta: -250_000 });
    expect(fake.callsTo('PUT', '/api/user/')[0]!.body).not.toHaveProperty('quota');
  });

  it('leaves the quota alone when the dialog is cancelled', async () => {
    const { events, drawer } = await openEdit();
    await events.click(buttonNamed(/^添加额度$/));
    const modal = (await screen.findByText('添加额度', { selector: '.ant-modal-title' })).closest('.ant-modal') as HTMLElement;
    await events.type(within(modal).getByLabelText('需要添加的额度（支持负数）'), '500');
    await events.click(buttonNamed(/^取\s*消$/, modal));
    expect(drawer.getByLabelText('剩余额度')).toHaveValue('1000000');
    expect(drawer.getByText('折合：$2.00')).toBeInTheDocument();
  });

  it("shows the user's own limits with what they count now, and leaves them out of a save that did not change them", async () => {
    fake.ok('PUT', '/api/user/');
    fake.ok('GET', '/api/limits/use', [
      { field: 'rpm', used: 7, reset_seconds: 20 },
      { field: 'rpd', used: 312, reset_seconds: 3600 },
      { field: 'tpm', used: 0, reset_seconds: 20 },
      { field: 'tpd', used: 45_000, reset_seconds: 3600 },
    ]);
    const { events, drawer } = await openEdit({ ...alice, rate_limits: { rpd: 1000, concurrency: 2 } });
    expect(drawer.getByText('速率限制')).toBeInTheDocument();
    expect(drawer.getByLabelText('每天请求数 (RPD)')).toHaveValue('1000');
    expect(drawer.getByLabelText('同时进行的请求数')).toHaveValue('2');
    expect(drawer.getByLabelText('每分钟请求数 (RPM)')).toHaveValue('');
    // The user's counters, asked for this user.
    expect(await drawer.findByText('当前已用 312')).toBeInTheDocument();
    // Counted for the group's or the default limit: shown beside the blank field too.
    expect(drawer.getByText('当前已用 45,000')).toBeInTheDocument();
    // A window nothing limits counts nothing: no "0 used" beside the open TPM.
    expect(drawer.queryByText('当前已用 0')).not.toBeInTheDocument();
    expect(Object.fromEntries(fake.callsTo('GET', '/api/limits/use')[0]!.query)).toEqual({ scope: 'user', id: '2' });

    fireEvent.change(drawer.getByLabelText('显示名称'), { target: { value: 'Alice C' } });
    await events.click(buttonNamed(/^提\s*交$/));
    await waitFor(() => expect(fake.callsTo('PUT', '/api/user/')).toHaveLength(1));
    expect(fake.callsTo('PUT', '/api/user/')[0]!.body).toEqual({ id: 2, username: 'alice', display_name: 'Alice C', group: 'vip' });
  });

  it('sends the whole limit set when one changed, a cleared field unlimited', async () => {
    fake.ok('PUT', '/api/user/');
    const { events, drawer } = await openEdit({ ...alice, rate_limits: { rpd: 1000, concurrency: 2 } });
    fireEvent.change(drawer.getByLabelText('每分钟请求数 (RPM)'), { target: { value: '60' } });
    fireEvent.change(drawer.getByLabelText('每天请求数 (RPD)'), { target: { value: '' } });
    await events.click(buttonNamed(/^提\s*交$/));
    expect(await screen.findByText('用户信息更新成功！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/user/')[0]!.body.rate_limits).toEqual({ rpm: 60, concurrency: 2 });
  });

  it('removes every limit with an empty set', async () => {
    fake.ok('PUT', '/api/user/');
    const { events, drawer } = await openEdit({ ...alice, rate_limits: { tpm: 5000 } });
    fireEvent.change(drawer.getByLabelText('每分钟 Token 数 (TPM)'), { target: { value: '0' } });
    await events.click(buttonNamed(/^提\s*交$/));
    await waitFor(() => expect(fake.callsTo('PUT', '/api/user/')).toHaveLength(1));
    expect(fake.callsTo('PUT', '/api/user/')[0]!.body.rate_limits).toEqual({});
  });

  it('opens from /user/edit/:id and goes back to /user when closed', async () => {
    const bob = makeUser({ id: 7, username: 'bob', group: 'default' });
    fake.ok('GET', '/api/user/', userPage([bob]));
    fake.ok('GET', '/api/user/7', bob);
    const { router } = renderUsers('/user/edit/7');
    const drawer = await drawerTitled('编辑用户');
    expect(await within(drawer).findByDisplayValue('bob')).toBeInTheDocument();
    expect(fake.callsTo('GET', '/api/user/7')).toHaveLength(1);

    await setupUser().click(drawer.querySelector('.ant-drawer-close')!);
    await waitFor(() => expect(router.state.location.pathname).toBe('/user'));
    await waitFor(() => expect(document.querySelector('.ant-drawer-open')).toBeNull());
  });

  it('shows why a user cannot be loaded', async () => {
    fake.ok('GET', '/api/user/', userPage([]));
    fake.fail('GET', '/api/user/1', 'no permission to manage a user of the same or a higher level');
    renderUsers('/user/edit/1');
    const drawer = await drawerTitled('编辑用户');
    expect(await within(drawer).findByText('no permission to manage a user of the same or a higher level')).toBeInTheDocument();
    expect(within(drawer).queryByLabelText('用户名')).not.toBeInTheDocument();
  });
});

describe('quota conversion', () => {
  it('turns a typed quota into an integer', () => {
    expect(toQuota('2500000')).toBe(2_500_000);
    expect(toQuota('12.9')).toBe(12);
    expect(toQuota(-7.5)).toBe(-7);
    expect(toQuota('')).toBe(0);
    expect(toQuota(null)).toBe(0);
    expect(toQuota('abc')).toBe(0);
  });
});

describe('limit changes', () => {
  it('sends nothing for an unchanged set, blank and 0 being the same as absent', () => {
    expect(rateLimitsChange({ rpm: 60 }, { rpm: 60, rpd: null, tpm: 0 })).toEqual({});
    expect(rateLimitsChange({}, undefined)).toEqual({});
  });

  it('sends the edited set whole, without its blanks', () => {
    expect(rateLimitsChange({ rpm: 60 }, { rpm: 60, tpd: 100_000 })).toEqual({ rate_limits: { rpm: 60, tpd: 100_000 } });
    expect(rateLimitsChange({ rpm: 60 }, { rpm: null })).toEqual({ rate_limits: {} });
  });
});
