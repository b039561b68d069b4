import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Role, type AuditRecord } from '@aigw/contracts';
import { SettingsPage } from '../src/features/settings/SettingsPage';
import { AuditTab } from '../src/features/settings/audit/AuditTab';
import type { RecordedCall } from './fake-api';
import { makeUser, renderPage, setupFakeApi } from './render';

const root = makeUser({ id: 1, username: 'root', role: Role.Root });
const admin = makeUser({ id: 3, username: 'ops', role: Role.Admin });
const rootActor = { user_id: 1, username: 'root', role: Role.Root };

function record(overrides: Partial<AuditRecord>): AuditRecord {
  return {
    id: 'r1',
    time: 1_732_600_000_000,
    service: 'identity',
    actor: rootActor,
    action: 'user.updated',
    target: { type: 'user', id: '42', label: 'alice' },
    before: null,
    after: null,
    ip: '203.0.113.7',
    ...overrides,
  };
}

const records: AuditRecord[] = [
  record({ id: 'r1', before: { group: 'default', password: '***' }, after: { group: 'vip', password: '***' } }),
  record({ id: 'r2', service: 'channels', action: 'channel.key_revealed', target: { type: 'channel', id: '3', label: 'openai-main' }, ip: '198.51.100.4' }),
  record({
    id: 'r3',
    action: 'option.updated',
    target: { type: 'option', id: 'SMTPToken', label: 'SMTPToken' },
    before: { SMTPToken: '' },
    after: { SMTPToken: '***' },
  }),
];

const page = (items: AuditRecord[]) => ({ items, total: items.length, page: 1, page_size: 10 });
const query = (call: RecordedCall) => Object.fromEntries(call.query);
const lastQuery = () => query(fake.callsTo('GET', '/api/audit/').at(-1)!);
const row = (text: string) => screen.getAllByText(text)[0]!.closest('tr') as HTMLElement;
const searchButton = () => screen.getByText('查询').closest('button')!;

const fake = setupFakeApi();

describe('audit log (settings, root)', () => {
  it('lists the records with actor, action, target and IP', async () => {
    fake.ok('GET', '/api/audit/', page(records));
    renderPage(<AuditTab />, { user: root });
    expect(await screen.findByText('编辑用户')).toBeInTheDocument();
    expect(within(row('编辑用户')).getByText('alice')).toBeInTheDocument();
    expect(within(row('编辑用户')).getByText('203.0.113.7')).toBeInTheDocument();
    expect(within(row('编辑用户')).getByText('超级管理员')).toBeInTheDocument();
    expect(within(row('查看渠道密钥')).getByText('openai-main')).toBeInTheDocument();
    expect(within(row('查看渠道密钥')).getByText('#3')).toBeInTheDocument();
    expect(within(row('修改设置')).getByText('SMTPToken')).toBeInTheDocument();
    expect(lastQuery()).toMatchObject({ p: '1', page_size: '10', actor: '', action: '', target_type: '', target_id: '' });
    expect(lastQuery()).not.toHaveProperty('start_timestamp');
    expect(fake.unexpected).toEqual([]);
  });

  it('expands a record into its changed fields, secrets shown as hidden', async () => {
    fake.ok('GET', '/api/audit/', page(records));
    renderPage(<AuditTab />, { user: root });
    await screen.findByText('编辑用户');
    await userEvent.click(row('编辑用户').querySelector('.ant-table-row-expand-icon') as HTMLElement);
    expect(await screen.findByText('group')).toBeInTheDocument();
    const diff = screen.getByText('group').closest('table') as HTMLElement;
    expect(within(diff).getByText('default')).toBeInTheDocument();
    expect(within(diff).getByText('vip')).toBeInTheDocument();
    expect(within(row('password')).getAllByText('已隐藏')).toHaveLength(2);

    await userEvent.click(row('查看渠道密钥').querySelector('.ant-table-row-expand-icon') as HTMLElement);
    expect(await screen.findByText('没有字段变更（例如查看了密钥）')).toBeInTheDocument();
    await userEvent.click(row('修改设置').querySelector('.ant-table-row-expand-icon') as HTMLElement);
    // A secret that was empty shows as empty; set, as hidden.
    await waitFor(() => expect(screen.getAllByText('SMTPToken')).toHaveLength(2));
    const field = screen.getAllByText('SMTPToken')[1]!.closest('tr') as HTMLElement;
    expect(within(field).getByText('""')).toBeInTheDocument();
    expect(within(field).getByText('已隐藏')).toBeInTheDocument();
  });

  it('sends the filters, from page 1', async () => {
    fake.ok('GET', '/api/audit/', page([]));
    renderPage(<AuditTab />, { user: root });
    await waitFor(() => expect(fake.callsTo('GET', '/api/audit/')).toHaveLength(1));
    fireEvent.change(screen.getByPlaceholderText('操作人（用户名或 ID）'), { target: { value: ' root ' } });
    fireEvent.change(screen.getByPlaceholderText('对象 ID'), { target: { value: '42' } });
    fireEvent.mouseDown(screen.getByLabelText('操作', { selector: 'input' }));
    await userEvent.click(await screen.findByTitle('调整额度'));
    fireEvent.mouseDown(screen.getByLabelText('对象类型', { selector: 'input' }));
    await userEvent.click(await screen.findByTitle('用户'));
    await userEvent.click(searchButton());
    await waitFor(() => expect(lastQuery()).toMatchObject({ actor: 'root', action: 'user.quota_changed', target_type: 'user', target_id: '42', p: '1' }));
  });

  it('is a settings tab of the super admin only, in both languages', async () => {
    fake.ok('GET', '/api/audit/', page(records));
    const { unmount } = renderPage(<SettingsPage />, { user: root, route: '/setting?tab=audit' });
    expect(await screen.findByText('编辑用户')).toBeInTheDocument();
    expect(screen.getAllByText('审计日志').length).toBeGreaterThan(0);
    unmount();

    renderPage(<SettingsPage />, { user: root, route: '/setting?tab=audit', locale: 'en-US' });
    expect(await screen.findByText('User edited')).toBeInTheDocument();
    expect(screen.getAllByText('Audit log').length).toBeGreaterThan(0);
  });

  it('is not offered to an admin', async () => {
    fake.ok('GET', '/api/user/self', admin);
    renderPage(<SettingsPage />, { user: admin, route: '/setting?tab=audit' });
    await screen.findByRole('tab', { name: '个人设置' });
    expect(screen.queryByText('审计日志')).not.toBeInTheDocument();
    expect(fake.callsTo('GET', '/api/audit/')).toHaveLength(0);
  });
});
