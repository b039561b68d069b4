import { screen, waitFor, within } from '@testing-library/react';
import userEventBase, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { deadLetterServices, Role, type DeadLetterService, type DeadLetterView } from '@aigw/contracts';
import { DeadLettersCard } from '../src/features/settings/operation/DeadLettersCard';
import { makeUser, renderPage, setupFakeApi } from './render';

const root = makeUser({ id: 1, username: 'root', role: Role.Root });

function letter(overrides: Partial<DeadLetterView> = {}): DeadLetterView {
  return {
    id: 3,
    event_id: 'task-refund-118',
    subject: 'relay.task.refunded',
    consumer: 'billing-task-refunds',
    pattern: 'relay.task.refunded',
    payload: '{"refund_id":"task-refund-118","quota":50000}',
    error: 'the charge req_1 is not recorded yet',
    attempts: 20,
    published_at: 1_732_600_000,
    failed_at: 1_732_600_100,
    created_at: 1_732_600_100,
    ...overrides,
  };
}

const page = (items: DeadLetterView[]) => ({ items, total: items.length, page: 1, page_size: 10 });
// Queries by text: getByRole computes styles for the whole antd tree (slow in jsdom), and so does
// user-event's pointer-events check.
const userEvent = userEventBase.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never });
const button = (text: string | RegExp, container: HTMLElement = document.body) =>
  within(container).getByText(text, { selector: 'button > span' }).closest('button')!;
const row = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;
/** A service's tab, once the card shows it. */
const tab = async (label: string) => (await screen.findByText(label, { selector: '.ant-tabs-tab *' })).closest('.ant-tabs-tab') as HTMLElement;
/** The OK of the confirmation just opened (closed ones stay in the page, hidden); antd writes "确 定". */
const confirm = async () =>
  userEvent.click((await screen.findAllByText(/^确\s?定$/, { selector: '.ant-popconfirm button > span' })).at(-1)!.closest('button')!);

const fake = setupFakeApi();
/** What each service holds now; the list routes answer from it. */
let held: Record<DeadLetterService, DeadLetterView[]>;

beforeEach(() => {
  held = { identity: [], billing: [], channels: [], relay: [], notifier: [] };
  for (const service of deadLetterServices)
    fake.on('GET', `/api/dead_letter/${service}/`, () => ({ body: { success: true, message: '', data: page(held[service]) } }));
});

describe('dead letters card (settings, operation)', () => {
  it("counts each service's dead letters and lists the chosen service's with subject, consumer, error, attempts and times", async () => {
    held.billing = [letter(), letter({ id: 4, event_id: 'req_2', subject: 'relay.usage.recorded', consumer: 'billing-usage', attempts: 1000 })];
    held.notifier = [letter({ id: 9, subject: 'notifier.mail.requested', consumer: 'notifier-mail', payload: null, error: 'SMTP refused' })];
    renderPage(<DeadLettersCard />, { user: root });

    expect(await screen.findByText('死信事件')).toBeInTheDocument();
    expect(await within(await tab('计费')).findByText('2')).toBeInTheDocument();
    expect(await within(await tab('通知')).findByText('1')).toBeInTheDocument();
    expect(within(await tab('身份')).getByText('0')).toBeInTheDocument();

    await userEvent.click(await tab('计费'));
    expect(await screen.findByText('relay.task.refunded')).toBeInTheDocument();
    const refund = row('relay.task.refunded');
    expect(within(refund).getByText('task-refund-118')).toBeInTheDocument();
    expect(within(refund).getByText('billing-task-refunds')).toBeInTheDocument();
    expect(within(refund).getByText('the charge req_1 is not recorded yet')).toBeInTheDocument();
    expect(within(refund).getByText('20')).toBeInTheDocument();
    expect(within(row('relay.usage.recorded')).getByText('1000')).toBeInTheDocument();
    expect(screen.getByText('共 2 条')).toBeInTheDocument();

    // The payload, expanded; a mail request's stays hidden.
    await userEvent.click(refund.querySelector('.ant-table-row-expand-icon') as HTMLElement);
    expect(await screen.findByText(/"quota": 50000/)).toBeInTheDocument();
    await userEvent.click(await tab('通知'));
    await userEvent.click((await screen.findByText('notifier.mail.requested')).closest('tr')!.querySelector('.ant-table-row-expand-icon') as HTMLElement);
    expect(await screen.findByText('此事件的内容只属于其用户（例如邮件验证码），不予显示')).toBeInTheDocument();
    expect(fake.unexpected).toEqual([]);
  });

  it('replays one: gone when the consumer handled it, kept with the server saying why when it failed again', async () => {
    held.identity = [letter({ id: 5, subject: 'channels.audit.recorded', consumer: 'identity-audit' }), letter({ id: 6, subject: 'billing.audit.recorded' })];
    fake.on('POST', '/api/dead_letter/identity/5/replay', () => {
      held.identity = held.identity.filter((item) => item.id !== 5);
      return { body: { success: true, message: '' } };
    });
    fake.on('POST', '/api/dead_letter/identity/6/replay', () => {
      held.identity = [letter({ id: 6, subject: 'billing.audit.recorded', attempts: 21 })];
      return { body: { success: false, message: 'replay failed: database is locked' } };
    });
    renderPage(<DeadLettersCard />, { user: root });

    await userEvent.click(button(/^重\s?放$/, await waitFor(() => row('channels.audit.recorded'))));
    expect(await screen.findByText('已重放，消费者已处理该事件')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('channels.audit.recorded')).toBeNull());

    await userEvent.click(button(/^重\s?放$/, row('billing.audit.recorded')));
    expect(await screen.findByText('replay failed: database is locked')).toBeInTheDocument();
    expect(await within(row('billing.audit.recorded')).findByText('21')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/dead_letter/identity/6/replay')).toHaveLength(1);
    expect(fake.unexpected).toEqual([]);
  });

  it("replays all of the chosen service's after a confirmation, and deletes one", async () => {
    held.relay = [
      letter({ id: 1, subject: 'channels.channel.updated', consumer: 'channels.channel.updated' }),
      letter({ id: 2, subject: 'billing.token.updated' }),
    ];
    fake.on('POST', '/api/dead_letter/relay/replay_all', () => {
      held.relay = held.relay.filter((item) => item.id === 2);
      return { body: { success: true, message: '', data: { replayed: 1, failed: 1 } } };
    });
    renderPage(<DeadLettersCard />, { user: root });
    await userEvent.click(await tab('转发'));
    // A subscription without a durable name is named by its subject.
    expect(await screen.findAllByText('channels.channel.updated')).toHaveLength(2);

    await userEvent.click(button('全部重放'));
    await confirm();
    expect(await screen.findByText('已重放 1 条，1 条再次失败')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryAllByText('channels.channel.updated')).toEqual([]));
    expect(fake.callsTo('POST', '/api/dead_letter/relay/replay_all')).toHaveLength(1);

    fake.on('DELETE', '/api/dead_letter/relay/2', () => {
      held.relay = [];
      return { body: { success: true, message: '' } };
    });
    await userEvent.click(button(/^删\s?除$/, row('billing.token.updated')));
    await confirm();
    expect(await screen.findByText('已删除')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('billing.token.updated')).toBeNull());
    expect(fake.callsTo('DELETE', '/api/dead_letter/relay/2')).toHaveLength(1);
    expect(fake.unexpected).toEqual([]);
  });
});
