import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Role } from '@aigw/contracts';
import { LoginPage } from '../src/features/auth/LoginPage';
import { RevealKeyButton } from '../src/features/channels/RevealKeyButton';
import { SecondFactorCard } from '../src/features/settings/personal/SecondFactorCard';
import { makeUser, renderPage, setupFakeApi } from './render';

const fake = setupFakeApi();

describe('the second step at sign-in', () => {
  it('asks for the code when the login answers require_2fa, then signs in', async () => {
    const user = makeUser({ id: 7, username: 'bob' });
    fake.ok('POST', '/api/user/login', { require_2fa: true }, 'enter the code of your authenticator app');
    fake.ok('POST', '/api/user/login/2fa', { ...user, default_password: false });
    const { router, store } = renderPage(<LoginPage />, { route: '/login' });
    await userEvent.type(screen.getByPlaceholderText('用户名或邮箱'), 'bob');
    await userEvent.type(screen.getByPlaceholderText('密码'), 'password1');
    await userEvent.click(screen.getByRole('button', { name: /登\s*录/ }));

    // Not signed in yet: the code is asked for.
    const code = await screen.findByPlaceholderText('验证码或备用码');
    expect(store.getState().session.user).toBeNull();
    expect(router.state.location.pathname).toBe('/login');
    await userEvent.type(code, '123456');
    await userEvent.click(screen.getByRole('button', { name: '验证并登录' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
    expect(fake.callsTo('POST', '/api/user/login/2fa')[0]!.body).toEqual({ code: '123456' });
    expect(store.getState().session.user).toEqual(user);
  });

  it('offers a passkey sign-in only when the administrator enabled passkeys', async () => {
    renderPage(<LoginPage />, { route: '/login' });
    expect(await screen.findByPlaceholderText('用户名或邮箱')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /通行密钥/ })).not.toBeInTheDocument();
  });
});

describe('the security card', () => {
  it('sets up 2FA: QR code, secret and backup codes, then enables it with a code', async () => {
    fake.ok('GET', '/api/user/2fa/status', { enabled: false, locked: false });
    fake.ok('POST', '/api/user/2fa/setup', {
      secret: 'JBSWY3DPEHPK3PXP',
      qr_code_data: 'otpauth://totp/New%20API:alice?secret=JBSWY3DPEHPK3PXP',
      backup_codes: ['ABCD-EFGH', 'JKLM-NPQR'],
    });
    fake.ok('POST', '/api/user/2fa/enable', null);
    renderPage(<SecondFactorCard />, { user: makeUser() });
    await userEvent.click(await screen.findByRole('button', { name: '启用两步验证' }));

    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/JBSWY3DPEHPK3PXP/)).toBeInTheDocument();
    expect(within(dialog).getByTestId('backup-codes')).toHaveTextContent('ABCD-EFGH JKLM-NPQR');
    expect(dialog.querySelector('svg')).not.toBeNull(); // the QR code

    fake.ok('GET', '/api/user/2fa/status', { enabled: true, locked: false, backup_codes_remaining: 2 });
    await userEvent.type(within(dialog).getByLabelText('验证码'), '654321');
    await userEvent.click(within(dialog).getByRole('button', { name: /验证并启用/ }));
    await waitFor(() => expect(fake.callsTo('POST', '/api/user/2fa/enable')[0]?.body).toEqual({ code: '654321' }));
    expect(await screen.findByText('剩余备用码：2 个')).toBeInTheDocument();
  });

  it('lists passkeys when they are enabled', async () => {
    fake.ok('GET', '/api/user/2fa/status', { enabled: false, locked: false });
    fake.ok('GET', '/api/user/passkey', {
      enabled: true,
      last_used_at: null,
      passkeys: [{ id: 3, name: 'work laptop', created_at: 1_700_000_000, last_used_at: null, backed_up: false }],
    });
    renderPage(<SecondFactorCard />, { user: makeUser(), status: { passkey_login: true } });
    expect(await screen.findByText('work laptop')).toBeInTheDocument();
  });
});

describe("root's channel key reveal", () => {
  it('asks for a step-up when the server refuses, then shows the key', async () => {
    let verified = false;
    fake.on('POST', '/api/channel/5/key', () =>
      verified
        ? { body: { success: true, message: '', data: { key: 'sk-upstream-secret' } } }
        : { status: 403, body: { success: false, message: 'a fresh verification is required first (POST /api/verify)' } },
    );
    fake.ok('GET', '/api/user/2fa/status', { enabled: true, locked: false, backup_codes_remaining: 10 });
    fake.ok('GET', '/api/user/passkey', { enabled: false, last_used_at: null, passkeys: [] });
    fake.on('POST', '/api/verify', () => {
      verified = true;
      return { body: { success: true, message: '', data: { verified: true, expires_at: 1_900_000_000 } } };
    });
    renderPage(<RevealKeyButton channelId={5} />, { user: makeUser({ id: 1, role: Role.Root }) });
    await userEvent.click(screen.getByRole('button', { name: /查看密钥/ }));

    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('安全验证')).toBeInTheDocument();
    expect(screen.queryByText('sk-upstream-secret')).not.toBeInTheDocument();
    // The code field comes once the dialog has loaded which second factors the user has.
    await userEvent.type(await within(dialog).findByLabelText('验证码或备用码'), '112233');
    await userEvent.click(within(dialog).getByRole('button', { name: /验\s*证/ }));

    expect(await screen.findByDisplayValue('sk-upstream-secret')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/verify')[0]!.body).toEqual({ method: '2fa', code: '112233' });
    expect(fake.callsTo('POST', '/api/channel/5/key')).toHaveLength(2);
  });

  it('tells a root without a second factor to set one up', async () => {
    fake.status('POST', '/api/channel/5/key', 403, { success: false, message: 'a fresh verification is required first (POST /api/verify)' });
    fake.ok('GET', '/api/user/2fa/status', { enabled: false, locked: false });
    fake.ok('GET', '/api/user/passkey', { enabled: false, last_used_at: null, passkeys: [] });
    renderPage(<RevealKeyButton channelId={5} />, { user: makeUser({ id: 1, role: Role.Root }) });
    await userEvent.click(screen.getByRole('button', { name: /查看密钥/ }));
    expect(await screen.findByText('您还没有设置两步验证或通行密钥，请先在个人设置中设置其中一种。')).toBeInTheDocument();
  });
});
