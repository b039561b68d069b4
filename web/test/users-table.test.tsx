import { act, screen, waitFor, within } from '@testing-library/react';
import { Role, type User } from '@aigw/contracts';
import { pageSizeChosen } from '../src/app/preferences';
import { makeUser, renderPage, setupFakeApi } from './render';
import { admin, buttonNamed, buttonsNamed, chooseOption, findRowOf, queryOf, renderUsers, rowOf, setupUser, userPage } from './users-support';
import { UsersPage } from '../src/features/users/UsersPage';

const fake = setupFakeApi();
beforeEach(() => {
  fake.ok('GET', '/api/group/', ['default', 'vip']);
});

const listWith = (...items: User[]) => fake.ok('GET', '/api/user/', userPage(items));
const listCalls = () => fake.callsTo('GET', '/api/user/');
const searchCalls = () => fake.callsTo('GET', '/api/user/search');
const keywordBox = () => screen.getByPlaceholderText('支持搜索用户的 ID、用户名、显示名称和邮箱地址 ...');

describe('user table', () => {
  it('requests p=0 on first load and renders every column', async () => {
    listWith(
      makeUser({
        id: 2,
        username: 'alice',
        display_name: 'Alice W',
        group: 'vip',
        quota: 1_000_000,
        used_quota: 250_000,
        request_count: 12,
        aff_count: 3,
        aff_history_quota: 500_000,
        inviter_id: 5,
        role: Role.Common,
        status: 1,
      }),
      makeUser({ id: 3, username: 'bob', display_name: 'bob', role: Role.Admin, status: 2, inviter_id: 0 }),
      makeUser({ id: 4, username: 'carol', role: Role.Root, status: 7 }),
      makeUser({ id: 5, username: 'dave', role: 42 }),
    );
    renderUsers();

    const alice = within(await findRowOf('alice'));
    expect(queryOf(listCalls()[0]!)).toEqual({ p: '0', page_size: '10' });
    const headers = [...document.querySelectorAll('thead th')].map((th) => th.textContent);
    expect(headers).toEqual(['ID', '用户名', '分组', '统计信息', '邀请信息', '角色', '状态', '操作']);
    expect(alice.getByText('2')).toBeInTheDocument();
    expect(alice.getByText('Alice W')).toBeInTheDocument();
    expect(alice.getByText('vip')).toBeInTheDocument();
    expect(alice.getByText('剩余额度：$2.00')).toBeInTheDocument();
    expect(alice.getByText('已用额度：$0.50')).toBeInTheDocument();
    expect(alice.getByText('调用次数：12')).toBeInTheDocument();
    expect(alice.getByText('邀请人数：3')).toBeInTheDocument();
    expect(alice.getByText('邀请总收益：$1.00')).toBeInTheDocument();
    expect(alice.getByText('邀请人ID：5')).toBeInTheDocument();
    expect(alice.getByText('普通用户')).toBeInTheDocument();
    expect(alice.getByText('已激活')).toBeInTheDocument();

    const bob = within(rowOf('bob'));
    // The display name is not repeated when it equals the username.
    expect(bob.getAllByText('bob')).toHaveLength(1);
    expect(bob.getByText('无邀请人')).toBeInTheDocument();
    expect(bob.getByText('管理员')).toBeInTheDocument();
    expect(bob.getByText('已封禁')).toBeInTheDocument();

    expect(within(rowOf('carol')).getByText('超级管理员')).toBeInTheDocument();
    expect(within(rowOf('carol')).getByText('未知状态')).toBeInTheDocument();
    expect(within(rowOf('dave')).getByText('未知身份')).toBeInTheDocument();
    expect(fake.unexpected).toEqual([]);
  });

  it('shows quota as a compact number when currency display is off', async () => {
    listWith(makeUser({ quota: 1_500_000, used_quota: 20_000 }));
    renderPage(<UsersPage />, { route: '/user', path: '/user', user: admin, status: { display_in_currency: false } });
    expect(await screen.findByText('剩余额度：1.5M')).toBeInTheDocument();
    expect(screen.getByText('已用额度：20k')).toBeInTheDocument();
  });

  it('speaks English when chosen', async () => {
    listWith(makeUser({ inviter_id: 0 }));
    renderPage(<UsersPage />, { route: '/user', path: '/user', user: admin, locale: 'en-US' });
    expect(await screen.findByText('No inviter')).toBeInTheDocument();
    expect(screen.getByText('Remaining quota: $2.00')).toBeInTheDocument();
    expect(buttonNamed(/^Deregister$/)).toBeInTheDocument();
  });

  it('searches by keyword and group with p and page_size', async () => {
    const user = setupUser();
    listWith(makeUser());
    fake.ok('GET', '/api/user/search', userPage([makeUser({ id: 9, username: 'zed' })]));
    renderUsers();
    await screen.findByText('alice');

    await user.type(keywordBox(), ' ze ');
    await user.click(buttonNamed(/^查\s*询$/));
    expect(await screen.findByText('zed')).toBeInTheDocument();
    expect(screen.queryByText('alice')).not.toBeInTheDocument();
    expect(queryOf(searchCalls()[0]!)).toEqual({ keyword: 'ze', group: '', p: '1', page_size: '10' });

    // Picking a group filters at once, keeping the keyword.
    await chooseOption(screen.getByLabelText('选择分组'), 'vip', user);
    await waitFor(() => expect(searchCalls()).toHaveLength(2));
    expect(queryOf(searchCalls()[1]!)).toEqual({ keyword: 'ze', group: 'vip', p: '1', page_size: '10' });

    // The same query again still asks the server, once the previous answer is in.
    await waitFor(() => expect(buttonNamed(/^查\s*询$/)).not.toHaveClass('ant-btn-loading'));
    await user.click(buttonNamed(/^查\s*询$/));
    await waitFor(() => expect(searchCalls()).toHaveLength(3));
    expect(queryOf(searchCalls()[2]!)).toEqual({ keyword: 'ze', group: 'vip', p: '1', page_size: '10' });
  });

  it('searches by group alone, and goes back to the plain list when the filters are cleared', async () => {
    const user = setupUser();
    listWith(makeUser());
    fake.ok('GET', '/api/user/search', userPage([makeUser({ id: 9, username: 'zed' })]));
    renderUsers();
    await screen.findByText('alice');

    await chooseOption(screen.getByLabelText('选择分组'), 'default', user);
    expect(await screen.findByText('zed')).toBeInTheDocument();
    expect(queryOf(searchCalls()[0]!)).toEqual({ keyword: '', group: 'default', p: '1', page_size: '10' });

    await user.click(document.querySelector('.ant-select-clear')!);
    expect(await screen.findByText('alice')).toBeInTheDocument();
    expect(queryOf(listCalls().at(-1)!)).toEqual({ p: '1', page_size: '10' });
  });

  it('searches when Enter is pressed in the keyword box', async () => {
    const user = setupUser();
    listWith(makeUser());
    fake.ok('GET', '/api/user/search', userPage([makeUser({ id: 9, username: 'zed' })]));
    renderUsers();
    await screen.findByText('alice');
    await user.type(keywordBox(), 'zed@example.com{Enter}');
    expect(await screen.findByText('zed')).toBeInTheDocument();
    expect(queryOf(searchCalls()[0]!).keyword).toBe('zed@example.com');
  });

  it('pages through the table and saves the chosen page size', async () => {
    const user = setupUser();
    // Two rows are enough: the total drives the pager, and each answer names the page it serves.
    fake.on('GET', '/api/user/', (call) => {
      const tag = `${call.query.get('p')}-${call.query.get('page_size')}`;
      return {
        body: { success: true, message: '', data: userPage([makeUser({ id: 2, username: `user${tag}` }), makeUser({ id: 3, username: 'other' })], 45) },
      };
    });
    const { store } = renderUsers();
    await screen.findByText('user0-10');
    expect(screen.getByText('共 45 条')).toBeInTheDocument();

    await user.click(screen.getByTitle('3'));
    await waitFor(() => expect(listCalls()).toHaveLength(2));
    expect(queryOf(listCalls()[1]!)).toEqual({ p: '3', page_size: '10' });
    expect(await screen.findByText('user3-10')).toBeInTheDocument();

    const sizeChanger = document.querySelector('.ant-pagination-options input') as HTMLElement;
    await chooseOption(sizeChanger, '20 条/页', user);
    await waitFor(() => expect(listCalls()).toHaveLength(3));
    expect(queryOf(listCalls()[2]!)).toEqual({ p: '1', page_size: '20' });
    expect(store.getState().preferences.pageSize).toBe(20);
    expect(localStorage.getItem('page-size')).toBe('20');
    expect(await screen.findByText('user1-20')).toBeInTheDocument();
  });

  it('offers the page sizes 10, 20, 50 and 100', async () => {
    listWith(makeUser());
    renderUsers();
    await screen.findByText('alice');
    const sizeChanger = document.querySelector('.ant-pagination-options input') as HTMLElement;
    await chooseOption(sizeChanger, '10 条/页');
    const sizes = [...document.querySelectorAll('.ant-select-item-option')].map((option) => option.getAttribute('title'));
    expect(sizes).toEqual(['10 条/页', '20 条/页', '50 条/页', '100 条/页']);
  });

  it('asks with the page size of the preferences', async () => {
    listWith(makeUser());
    const { store } = renderUsers();
    await screen.findByText('alice');
    act(() => {
      store.dispatch(pageSizeChosen(50));
    });
    await waitFor(() => expect(listCalls()).toHaveLength(2));
    expect(queryOf(listCalls()[1]!)).toEqual({ p: '0', page_size: '50' });
  });
});

describe('manage actions', () => {
  const cases: Array<{ action: string; button: RegExp; user: Partial<User>; answer: { role: number; status: number }; shows: string }> = [
    { action: 'promote', button: /^提\s*升$/, user: { role: Role.Common }, answer: { role: Role.Admin, status: 1 }, shows: '管理员' },
    { action: 'demote', button: /^降\s*级$/, user: { role: Role.Admin }, answer: { role: Role.Common, status: 1 }, shows: '普通用户' },
    { action: 'disable', button: /^禁\s*用$/, user: { status: 1 }, answer: { role: Role.Common, status: 2 }, shows: '已封禁' },
    { action: 'enable', button: /^启\s*用$/, user: { status: 2 }, answer: { role: Role.Common, status: 1 }, shows: '已激活' },
  ];

  it.each(cases)('$action posts {id, action} and the row takes the answer', async ({ action, button, user, answer, shows }) => {
    const events = setupUser();
    listWith(makeUser({ id: 7, username: 'target', ...user }), makeUser({ id: 8, username: 'other', role: Role.Common, status: 1 }));
    fake.ok('POST', '/api/user/manage', answer);
    renderUsers();
    const row = await findRowOf('target');

    await events.click(buttonNamed(button, row));
    expect(await screen.findByText('操作成功完成！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/manage')[0]!.body).toEqual({ id: 7, action });
    await waitFor(() => expect(within(row).getByText(shows)).toBeInTheDocument());
    // The cached page was patched: no second list request.
    expect(listCalls()).toHaveLength(1);
    // The other row is untouched.
    expect(within(rowOf('other')).getByText('普通用户')).toBeInTheDocument();
    expect(within(rowOf('other')).getByText('已激活')).toBeInTheDocument();
  });

  it('swaps disable for enable once the server says the user is banned', async () => {
    const user = setupUser();
    listWith(makeUser({ id: 7, username: 'target', status: 1 }));
    fake.ok('POST', '/api/user/manage', { role: Role.Common, status: 2 });
    renderUsers();
    const row = await findRowOf('target');
    await user.click(buttonNamed(/^禁\s*用$/, row));
    await waitFor(() => expect(buttonNamed(/^启\s*用$/, row)).toBeEnabled());
    expect(buttonsNamed(/^禁\s*用$/, row)).toHaveLength(0);
  });

  it('deregisters after a confirmation, then shows the tag and hides the actions', async () => {
    const user = setupUser();
    listWith(makeUser({ id: 7, username: 'target' }));
    fake.ok('POST', '/api/user/manage', { role: Role.Common, status: 1 });
    renderUsers();
    const row = await findRowOf('target');

    await user.click(buttonNamed(/^注\s*销$/, row));
    const confirm = (await screen.findByText('确定要注销此用户？')).closest('.ant-popover') as HTMLElement;
    expect(within(confirm).getByText('相当于删除用户，此修改将不可逆')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/manage')).toHaveLength(0);
    await user.click(buttonNamed(/^确\s*定$/, confirm));

    expect(await screen.findByText('操作成功完成！')).toBeInTheDocument();
    expect(await within(row).findByText('已注销')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/manage')[0]!.body).toEqual({ id: 7, action: 'delete' });
    expect(row.querySelectorAll('button')).toHaveLength(0);
    expect(listCalls()).toHaveLength(1);
  });

  it('does not deregister when the confirmation is cancelled', async () => {
    const user = setupUser();
    listWith(makeUser({ id: 7, username: 'target' }));
    renderUsers();
    const row = await findRowOf('target');
    await user.click(buttonNamed(/^注\s*销$/, row));
    const confirm = (await screen.findByText('确定要注销此用户？')).closest('.ant-popover') as HTMLElement;
    await user.click(buttonNamed(/^取\s*消$/, confirm));
    expect(fake.callsTo('POST', '/api/user/manage')).toHaveLength(0);
    expect(within(row).queryByText('已注销')).not.toBeInTheDocument();
  });

  it('shows a deregistered row with a red tag and no actions', async () => {
    listWith(makeUser({ id: 7, username: 'gone', DeletedAt: '2025-01-01T00:00:00.000Z' }), makeUser({ id: 8, username: 'here' }));
    renderUsers();
    const gone = await findRowOf('gone');
    expect(within(gone).getByText('已注销').closest('.ant-tag')).toHaveClass('ant-tag-red');
    expect(gone.querySelectorAll('button')).toHaveLength(0);
    expect(rowOf('here').querySelectorAll('button')).toHaveLength(5);
  });

  it('shows disable for status 1, enable for others, and disables enable for status 3', async () => {
    listWith(
      makeUser({ id: 1, username: 'active', status: 1 }),
      makeUser({ id: 2, username: 'banned', status: 2 }),
      makeUser({ id: 3, username: 'three', status: 3 }),
    );
    renderUsers();
    const active = await findRowOf('active');
    expect(buttonNamed(/^禁\s*用$/, active)).toBeEnabled();
    expect(buttonsNamed(/^启\s*用$/, active)).toHaveLength(0);
    expect(buttonNamed(/^启\s*用$/, rowOf('banned'))).toBeEnabled();
    expect(buttonNamed(/^启\s*用$/, rowOf('three'))).toBeDisabled();
  });

  it('shows the server message when an action is refused and leaves the row as it was', async () => {
    const user = setupUser();
    listWith(makeUser({ id: 7, username: 'target', role: Role.Common }));
    fake.fail('POST', '/api/user/manage', 'only the super admin can promote users');
    renderUsers();
    const row = await findRowOf('target');
    await user.click(buttonNamed(/^提\s*升$/, row));
    expect(await screen.findByText('only the super admin can promote users')).toBeInTheDocument();
    expect(within(row).getByText('普通用户')).toBeInTheDocument();
    expect(screen.queryByText('操作成功完成！')).not.toBeInTheDocument();
  });
});
