// Issue 18: a balance billing did not answer for is unknown (shown as such, never as 0, and not
// editable), and the editor sends the quota only when the admin changed it: a typed balance with
// the one it replaces, the add-quota dialog's amounts as a delta.
import { screen, waitFor, within } from '@testing-library/react';
import type { UserRow } from '@aigw/contracts';
import { quotaChange } from '../src/features/users/EditUserForm';
import { UsersPage } from '../src/features/users/UsersPage';
import { makeUser, renderPage, setupFakeApi } from './render';
import { admin, buttonNamed, drawerTitled, findRowOf, renderUsers, setupUser } from './users-support';

const fake = setupFakeApi();
beforeEach(() => {
  fake.ok('GET', '/api/group/', ['default', 'vip']);
});

const BALANCE = 49_955_643;
const alice: UserRow = makeUser({ id: 2, username: 'alice', display_name: 'Alice', group: 'default', quota: BALANCE, used_quota: 250_000, request_count: 12 });
/** The row identity answers while billing is not answering. */
const aliceUnknown: UserRow = { ...alice, quota: null, used_quota: null, request_count: null, aff_count: null, aff_quota: null, aff_history_quota: null };

const pageOf = (...items: UserRow[]) => ({ items, total: items.length, page: 1, page_size: 10 });
const putBodies = () => fake.callsTo('PUT', '/api/user/').map((call) => call.body);

async function openEdit(user: UserRow) {
  fake.ok('GET', '/api/user/', pageOf(user));
  fake.ok('GET', `/api/user/${user.id}`, user);
  renderUsers();
  const events = setupUser();
  await events.click(buttonNamed(/^编\s*辑$/, await findRowOf(user.username)));
  const element = await drawerTitled('编辑用户');
  const drawer = within(element);
  await drawer.findByDisplayValue(user.username);
  return { events, drawer, element };
}

/** Adds `amount` in the add-quota dialog and waits for the quota field to show `result`. */
async function addQuota(events: ReturnType<typeof setupUser>, drawer: ReturnType<typeof within>, amount: string, result: number) {
  await events.click(buttonNamed(/^添加额度$/));
  const modal = (await screen.findByText('添加额度', { selector: '.ant-modal-title' })).closest('.ant-modal') as HTMLElement;
  await events.type(within(modal).getByLabelText('需要添加的额度（支持负数）'), amount);
  await events.click(buttonNamed(/^确\s*定$/, modal));
  await waitFor(() => expect(drawer.getByLabelText('剩余额度')).toHaveValue(String(result)));
  await waitFor(() => expect(document.querySelector('.ant-modal')).toBeNull());
}

describe('a balance billing did not answer for', () => {
  it('shows as unavailable in the user table, never as 0', async () => {
    fake.ok('GET', '/api/user/', pageOf(aliceUnknown));
    renderUsers();
    const row = within(await findRowOf('alice'));
    expect(row.getByText('剩余额度：暂不可用')).toBeInTheDocument();
    expect(row.getByText('已用额度：暂不可用')).toBeInTheDocument();
    expect(row.getByText('调用次数：暂不可用')).toBeInTheDocument();
    expect(row.getByText('邀请人数：暂不可用')).toBeInTheDocument();
    expect(row.getByText('邀请总收益：暂不可用')).toBeInTheDocument();
    expect(row.queryByText(/\$0\.00/)).not.toBeInTheDocument();
  });

  it('says unavailable in English too', async () => {
    fake.ok('GET', '/api/user/', pageOf(aliceUnknown));
    renderPage(<UsersPage />, { route: '/user', user: admin, locale: 'en-US', routes: [{ path: '/user', element: <UsersPage /> }] });
    const row = within(await findRowOf('alice'));
    expect(row.getByText('Remaining quota: unavailable')).toBeInTheDocument();
    expect(row.getByText('Calls: unavailable')).toBeInTheDocument();
  });

  it('disables the quota field and the add-quota button, and a profile save sends no quota', async () => {
    fake.ok('PUT', '/api/user/');
    const { events, drawer } = await openEdit(aliceUnknown);
    const quota = drawer.getByLabelText('剩余额度');
    expect(quota).toBeDisabled();
    expect(quota).toHaveValue('');
    expect(quota).toHaveAttribute('placeholder', '暂不可用');
    expect(buttonNamed(/^添加额度$/)).toBeDisabled();
    expect(drawer.getByText('暂时无法读取余额，不能修改额度，请稍后重新打开')).toBeInTheDocument();
    expect(drawer.queryByText('折合：$0.00')).not.toBeInTheDocument();

    await events.clear(drawer.getByLabelText('显示名称'));
    await events.type(drawer.getByLabelText('显示名称'), 'Alice B');
    await events.click(buttonNamed(/^提\s*交$/));
    expect(await screen.findByText('用户信息更新成功！')).toBeInTheDocument();
    expect(putBodies()).toEqual([{ id: 2, username: 'alice', display_name: 'Alice B', group: 'default' }]);
  });
});

describe('the editor sends the quota only when the admin changed it', () => {
  it('leaves the quota out of a profile save', async () => {
    fake.ok('PUT', '/api/user/');
    const { events, drawer } = await openEdit(alice);
    expect(drawer.getByLabelText('剩余额度')).toHaveValue(String(BALANCE));
    await events.type(drawer.getByLabelText('显示名称'), ' B');
    await events.click(buttonNamed(/^提\s*交$/));
    expect(await screen.findByText('用户信息更新成功！')).toBeInTheDocument();
    expect(putBodies()).toEqual([{ id: 2, username: 'alice', display_name: 'Alice B', group: 'default' }]);
  });

  it('sends a typed balance with the balance it replaces', async () => {
    fake.ok('PUT', '/api/user/');
    const { events, drawer } = await openEdit(alice);
    await events.clear(drawer.getByLabelText('剩余额度'));
    await events.type(drawer.getByLabelText('剩余额度'), '50000000');
    await events.click(buttonNamed(/^提\s*交$/));
    await waitFor(() => expect(putBodies()).toHaveLength(1));
    expect(putBodies()[0]).toMatchObject({ quota: 50_000_000, expected_quota: BALANCE });
    expect(putBodies()[0]).not.toHaveProperty('quota_delta');
  });

  it("sends the add-quota dialog's amounts as one delta", async () => {
    fake.ok('PUT', '/api/user/');
    const { events, drawer } = await openEdit(alice);
    await addQuota(events, drawer, '1000', BALANCE + 1000);
    await addQuota(events, drawer, '-300', BALANCE + 700);
    expect(drawer.getByText('折合：$99.91')).toBeInTheDocument();
    await events.click(buttonNamed(/^提\s*交$/));
    await waitFor(() => expect(putBodies()).toHaveLength(1));
    expect(putBodies()[0]).toEqual({ id: 2, username: 'alice', display_name: 'Alice', group: 'default', quota_delta: 700 });
  });

  it('tells the admin when the balance changed since it was loaded, and keeps the drawer open', async () => {
    const refusal = `quota: the balance changed since you loaded it (it is now 0, you loaded ${BALANCE}); reload the user and try again`;
    fake.fail('PUT', '/api/user/', refusal);
    const { events, drawer } = await openEdit(alice);
    await events.clear(drawer.getByLabelText('剩余额度'));
    await events.type(drawer.getByLabelText('剩余额度'), '100');
    await events.click(buttonNamed(/^提\s*交$/));
    expect(await screen.findByText(refusal)).toBeInTheDocument();
    expect(putBodies()[0]).toMatchObject({ quota: 100, expected_quota: BALANCE });
    expect(screen.queryByText('用户信息更新成功！')).not.toBeInTheDocument();
    expect(document.querySelector('.ant-drawer-open')).not.toBeNull();
  });
});

describe('quotaChange', () => {
  it('is nothing when unchanged or unknown, a delta for dialog amounts only, else the typed balance with the loaded one', () => {
    expect(quotaChange(100, 100, 0)).toEqual({});
    expect(quotaChange(null, 0, 0)).toEqual({});
    expect(quotaChange(null, 500, 0)).toEqual({});
    expect(quotaChange(100, 150, 50)).toEqual({ quota_delta: 50 });
    // Typed back to the loaded balance after adding: no change.
    expect(quotaChange(100, 100, 50)).toEqual({});
    // Typed over, then added to: the typed result with the balance it replaces.
    expect(quotaChange(100, 250, 50)).toEqual({ quota: 250, expected_quota: 100 });
    expect(quotaChange(100, 0, 0)).toEqual({ quota: 0, expected_quota: 100 });
  });
});
