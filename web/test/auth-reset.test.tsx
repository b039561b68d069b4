import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent, { PointerEventsCheckLevel, type UserEvent } from '@testing-library/user-event';
import { ResetConfirmPage } from '../src/features/auth/ResetConfirmPage';
import { ResetPage } from '../src/features/auth/ResetPage';
import { renderPage, setupFakeApi } from './render';

/**
 * A button by its text. Role queries compute every element's accessible name and visibility
 * (getComputedStyle on each, seconds per query in jsdom with antd's styles), so the
 * interaction-heavy tests find buttons by their label instead.
 */
const button = (name: string | RegExp) => screen.getByText(name, { selector: 'button span' }).closest('button')!;
const queryButton = (name: string | RegExp) => screen.queryByText(name, { selector: 'button span' })?.closest('button') ?? null;

const fake = setupFakeApi();
let user: UserEvent;
beforeEach(() => {
  // The pointer-events check of every click reads computed styles: slow in jsdom, and antd's buttons are never inert.
  user = userEvent.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never });
});
afterEach(() => {
  jest.useRealTimers();
});

describe('reset page', () => {
  it('asks for a valid email before calling the server', async () => {
    renderPage(<ResetPage />, { route: '/reset' });
    await user.click(button(/提\s*交/));
    expect(await screen.findByText('请输入邮箱地址！')).toBeInTheDocument();
    await user.click(screen.getByPlaceholderText('邮箱地址'));
    await user.paste('nobody');
    await user.click(button(/提\s*交/));
    expect(await screen.findByText('邮箱地址格式不正确')).toBeInTheDocument();
    expect(fake.calls).toHaveLength(0);
  });

  it('sends the reset email, says to check the mailbox, and locks the button for 30 seconds', async () => {
    jest.useFakeTimers();
    user = userEvent.setup({ advanceTimers: jest.advanceTimersByTime, pointerEventsCheck: PointerEventsCheckLevel.Never });
    fake.ok('POST', '/api/reset_password');
    renderPage(<ResetPage />, { route: '/reset' });
    await user.click(screen.getByPlaceholderText('邮箱地址'));
    await user.paste(' amy@example.com ');
    await user.click(button(/提\s*交/));
    expect(await screen.findByText('重置邮件发送成功，请检查邮箱！')).toBeInTheDocument();
    const call = fake.callsTo('POST', '/api/reset_password')[0]!;
    expect(call.body).toEqual({ email: 'amy@example.com' });
    expect(call.query.has('turnstile')).toBe(false);

    expect(button('重试 (30)')).toBeDisabled();
    act(() => jest.advanceTimersByTime(29_000));
    expect(button('重试 (1)')).toBeDisabled();
    act(() => jest.advanceTimersByTime(1_000));
    expect(button(/提\s*交/)).toBeEnabled();
    expect(fake.callsTo('POST', '/api/reset_password')).toHaveLength(1);
  });

  it('shows the server message and does not lock when the request is refused', async () => {
    fake.fail('POST', '/api/reset_password', 'please wait 30 seconds before asking again');
    renderPage(<ResetPage />, { route: '/reset' });
    await user.click(screen.getByPlaceholderText('邮箱地址'));
    await user.paste('amy@example.com');
    await user.click(button(/提\s*交/));
    expect(await screen.findByText('please wait 30 seconds before asking again')).toBeInTheDocument();
    expect(button(/提\s*交/)).toBeEnabled();
  });

  it('waits for the human check when it is on', async () => {
    renderPage(<ResetPage />, { route: '/reset', status: { turnstile_check: true, turnstile_site_key: 'key' } });
    await user.click(screen.getByPlaceholderText('邮箱地址'));
    await user.paste('amy@example.com');
    await user.click(button(/提\s*交/));
    expect(await screen.findByText('请稍后几秒重试，Turnstile 正在检查用户环境！')).toBeInTheDocument();
    expect(fake.calls).toHaveLength(0);
  });
});

describe('password reset confirm page', () => {
  const route = '/user/reset?email=amy%40example.com&token=0123abcd';
  let writeText: jest.Mock;
  let clipboard: PropertyDescriptor | undefined;
  beforeEach(() => {
    clipboard = Object.getOwnPropertyDescriptor(window.navigator, 'clipboard');
    writeText = jest.fn().mockResolvedValue(undefined);
    Object.defineProperty(window.navigator, 'clipboard', { configurable: true, value: { writeText } });
  });
  afterEach(() => {
    if (clipboard) Object.defineProperty(window.navigator, 'clipboard', clipboard);
    else delete (window.navigator as { clipboard?: unknown }).clipboard;
  });

  const confirm = () => fireEvent.click(button('确认重置密码'));

  it('says the link is invalid without email or token', () => {
    renderPage(<ResetConfirmPage />, { route: '/user/reset?email=amy%40example.com' });
    expect(screen.getByText('无效的重置链接，请重新发起密码重置')).toBeInTheDocument();
    expect(queryButton('确认重置密码')).not.toBeInTheDocument();
    expect(fake.calls).toHaveLength(0);
  });

  it('posts email and token, shows the new password and copies it', async () => {
    fake.ok('POST', '/api/user/reset', 'N3wPassw0rd!x');
    renderPage(<ResetConfirmPage />, { route });
    expect(screen.getByLabelText('邮箱地址', { selector: 'input' })).toHaveValue('amy@example.com');
    confirm();
    expect(await screen.findByLabelText('新密码', { selector: 'input' })).toHaveValue('N3wPassw0rd!x');
    expect(fake.callsTo('POST', '/api/user/reset')[0]!.body).toEqual({ email: 'amy@example.com', token: '0123abcd' });
    expect(writeText).toHaveBeenCalledWith('N3wPassw0rd!x');
    expect(await screen.findByText('新密码已复制到剪贴板')).toBeInTheDocument();
    expect(button('密码重置完成')).toBeDisabled();

    // The copy button copies it again.
    fireEvent.click(screen.getByLabelText('复制', { selector: 'button' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledTimes(2));
  });

  it('opens the manual-copy dialog when the clipboard refuses', async () => {
    writeText.mockRejectedValue(new Error('not allowed'));
    fake.ok('POST', '/api/user/reset', 'N3wPassw0rd!x');
    renderPage(<ResetConfirmPage />, { route });
    confirm();
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getAllByText('无法复制到剪贴板，请手动复制').length).toBeGreaterThan(0);
    expect(within(dialog).getByDisplayValue('N3wPassw0rd!x')).toBeInTheDocument();
    expect(screen.queryByText('新密码已复制到剪贴板')).not.toBeInTheDocument();
  });

  it('shows the server message for a spent or expired link', async () => {
    fake.fail('POST', '/api/user/reset', 'the reset link is invalid or has expired');
    renderPage(<ResetConfirmPage />, { route });
    confirm();
    expect(await screen.findByText('the reset link is invalid or has expired')).toBeInTheDocument();
    expect(screen.queryByLabelText('新密码', { selector: 'input' })).not.toBeInTheDocument();
    expect(writeText).not.toHaveBeenCalled();
  });

  it('says that the reset signs out every session and revokes the system access token, before and after (issue 22.6)', async () => {
    const revokes = '重置后，所有已登录的会话都会退出，系统访问令牌也会失效；如仍需令牌，请登录后重新生成。';
    fake.ok('POST', '/api/user/reset', 'N3wPassw0rd!x');
    renderPage(<ResetConfirmPage />, { route });
    expect(screen.getByText(revokes)).toBeInTheDocument();
    confirm();
    expect(await screen.findByLabelText('新密码', { selector: 'input' })).toHaveValue('N3wPassw0rd!x');
    expect(screen.getByText(revokes)).toBeInTheDocument();
  });
});
