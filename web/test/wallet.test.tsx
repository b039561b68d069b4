import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { WalletPage } from '../src/features/wallet/WalletPage';
import { makeUser, renderPage, setupFakeApi } from './render';

const fake = setupFakeApi();
beforeEach(() => {
  fake.ok('GET', '/api/user/self', makeUser({ quota: 1_000_000, used_quota: 250_000, request_count: 7 }));
});

describe('wallet', () => {
  it('shows the balance figures', async () => {
    renderPage(<WalletPage />, { user: makeUser() });
    expect(await screen.findByText('$2.00')).toBeInTheDocument();
    expect(screen.getByText('$0.50')).toBeInTheDocument();
    expect(screen.getByText('7')).toBeInTheDocument();
  });

  it('asks for a code, redeems it and refreshes the balance', async () => {
    renderPage(<WalletPage />, { user: makeUser() });
    await userEvent.click(screen.getByRole('button', { name: /^兑\s*换$/ }));
    expect(await screen.findByText('请输入兑换码！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/topup')).toHaveLength(0);

    fake.ok('POST', '/api/user/topup', 500_000);
    await userEvent.type(screen.getByPlaceholderText('请输入兑换码'), ' code-1 ');
    fake.ok('GET', '/api/user/self', makeUser({ quota: 1_500_000 }));
    await userEvent.click(screen.getByRole('button', { name: /^兑\s*换$/ }));
    expect(await screen.findByText('兑换成功！已添加额度：$1.00')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/topup')[0]!.body).toEqual({ key: 'code-1' });
    expect(await screen.findByText('$3.00')).toBeInTheDocument();
  });

  it('shows the server refusal of a wrong code', async () => {
    fake.fail('POST', '/api/user/topup', 'invalid or already used redemption code');
    renderPage(<WalletPage />, { user: makeUser() });
    await userEvent.type(screen.getByPlaceholderText('请输入兑换码'), 'nope');
    await userEvent.click(screen.getByRole('button', { name: /^兑\s*换$/ }));
    expect(await screen.findByText('invalid or already used redemption code')).toBeInTheDocument();
  });

  it('says when online top-up is off and when no recharge link is set', async () => {
    renderPage(<WalletPage />, { user: makeUser(), status: { enable_online_topup: false, top_up_link: '' } });
    await userEvent.click(screen.getByRole('button', { name: /支付宝/ }));
    expect(await screen.findByText('管理员未开启在线充值！')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: /获取兑换码/ }));
    expect(await screen.findByText('超级管理员未设置充值链接！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/amount')).toHaveLength(0);
  });

  it('refuses less than the minimum, then confirms quantity and amount payable before paying', async () => {
    fake.ok('POST', '/api/user/amount', '73.00');
    fake.on('POST', '/api/user/pay', () => ({
      body: { success: true, message: 'success', data: { pid: '1', sign: 'x' }, url: 'https://pay.example.com/submit.php' },
    }));
    const submit = jest.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(() => undefined);
    renderPage(<WalletPage />, { user: makeUser(), status: { enable_online_topup: true, min_topup: 5 } });
    const amount = screen.getByLabelText('充值数量');
    await userEvent.clear(amount);
    await userEvent.type(amount, '3');
    await userEvent.click(screen.getByRole('button', { name: /微信/ }));
    expect(await screen.findByText('充值数量不能小于 5')).toBeInTheDocument();

    await userEvent.clear(amount);
    await userEvent.type(amount, '10');
    await userEvent.click(screen.getByRole('button', { name: /微信/ }));
    expect(await screen.findByText('73.00')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/amount')[0]!.body).toEqual({ amount: 10, top_up_code: '' });
    await userEvent.click(screen.getByRole('button', { name: /确认支付/ }));
    await waitFor(() => expect(submit).toHaveBeenCalled());
    expect(fake.callsTo('POST', '/api/user/pay')[0]!.body).toEqual({ amount: 10, top_up_code: '', payment_method: 'wx' });
    submit.mockRestore();
  });

  it('shows the server message when online payment is refused', async () => {
    fake.fail('POST', '/api/user/amount', 'the administrator has not enabled online top-up');
    renderPage(<WalletPage />, { user: makeUser(), status: { enable_online_topup: true } });
    await userEvent.click(screen.getByRole('button', { name: /支付宝/ }));
    expect(await screen.findByText('the administrator has not enabled online top-up')).toBeInTheDocument();
  });

  it.each([
    ['an HTTP failure', () => ({ status: 502, body: { success: false, message: 'bad gateway' } }), '请求失败'],
    ['the server refusing', () => ({ body: { success: false, message: 'payment gateway not configured' } }), 'payment gateway not configured'],
  ])('says once what went wrong when paying fails (%s)', async (_case, reply, text) => {
    fake.ok('POST', '/api/user/amount', '73.00');
    fake.on('POST', '/api/user/pay', reply);
    renderPage(<WalletPage />, { user: makeUser(), status: { enable_online_topup: true, min_topup: 1 } });
    await userEvent.click(screen.getByRole('button', { name: /支付宝/ }));
    await userEvent.click(await screen.findByRole('button', { name: /确认支付/ }));
    expect(await screen.findByText(text)).toBeInTheDocument();
    expect(document.querySelectorAll('.ant-message-notice')).toHaveLength(1);
    expect(screen.queryByText('bad gateway')).not.toBeInTheDocument();
  });
});
