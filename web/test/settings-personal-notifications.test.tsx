import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserSettingView } from '@aigw/contracts';
import { NotificationCard } from '../src/features/settings/personal/NotificationCard';
import { makeUser, renderPage, setupFakeApi } from './render';

const fake = setupFakeApi();
const user = makeUser({ id: 2, username: 'alice' });

const stored: UserSettingView = {
  notify_type: 'email',
  quota_warning_threshold: 0,
  webhook_url: '',
  notification_email: '',
  bark_url: '',
  gotify_url: '',
  gotify_priority: 5,
  accept_unset_model_ratio_model: false,
  wxpusher_uid: '',
  webhook_secret_set: false,
  gotify_token_set: false,
};

const open = () => renderPage(<NotificationCard />, { route: '/setting', user });

async function chooseMethod(label: string) {
  fireEvent.mouseDown(await screen.findByLabelText('通知方式'));
  await waitFor(() => expect(document.querySelector('.ant-select-dropdown')).not.toBeNull());
  await userEvent.click(within(document.querySelector<HTMLElement>('.ant-select-dropdown')!).getByText(label));
}

async function click(text: string) {
  await userEvent.click((await screen.findByText(text)).closest('button')!);
}

describe('personal settings: notifications', () => {
  it('saves Gotify with its token and priority; a kept secret is not sent again', async () => {
    fake.ok('GET', '/api/user/setting', { ...stored, webhook_secret_set: true });
    fake.on('PUT', '/api/user/setting', (call) => ({ body: { success: true, message: '', data: { ...stored, ...call.body, gotify_token_set: true } } }));
    open();
    await chooseMethod('Gotify');
    await userEvent.type(await screen.findByLabelText('Gotify 服务器地址'), 'https://push.example.com');
    await userEvent.type(screen.getByLabelText('Gotify 应用令牌'), 'AzToken');
    const priority = screen.getByLabelText('Gotify 消息优先级（0-10）');
    await userEvent.clear(priority);
    await userEvent.type(priority, '8');
    await click('保存通知设置');
    expect(await screen.findByText('通知设置已保存')).toBeInTheDocument();
    const [put] = fake.callsTo('PUT', '/api/user/setting');
    expect(put!.body).toMatchObject({
      notify_type: 'gotify',
      gotify_url: 'https://push.example.com',
      gotify_token: 'AzToken',
      gotify_priority: 8,
    });
    expect(put!.body).not.toHaveProperty('webhook_secret');
    // Not offered: billing does not apply a user's own threshold yet (docs/architecture.md, "Not built yet").
    expect(put!.body).not.toHaveProperty('quota_warning_threshold');
  });

  it("shows the server's message naming a bad field", async () => {
    fake.ok('GET', '/api/user/setting', stored);
    fake.fail('PUT', '/api/user/setting', 'bark_url: bark_url must be an http(s) URL without user name or password');
    open();
    await chooseMethod('Bark');
    await userEvent.type(await screen.findByLabelText('Bark 推送地址'), 'ftp://x');
    await click('保存通知设置');
    expect(await screen.findByText('bark_url: bark_url must be an http(s) URL without user name or password')).toBeInTheDocument();
  });

  it('binds WxPusher: the QR code with its expiry, refreshed once expired, then bound when scanned', async () => {
    let setting = stored;
    fake.on('GET', '/api/user/setting', () => ({ body: { success: true, message: '', data: setting } }));
    const codes = [
      { url: 'https://mp.weixin.qq.com/cgi-bin/showqrcode?ticket=first', code: 'first', expires_at: Date.now() - 1_000 },
      { url: 'https://mp.weixin.qq.com/cgi-bin/showqrcode?ticket=second', code: 'second', expires_at: Date.now() + 30 * 60_000 },
    ];
    fake.on('GET', '/api/user/wxpusher/qrcode', () => ({ body: { success: true, message: '', data: codes.shift() } }));
    let scanned = false;
    fake.on('POST', '/api/user/wxpusher/bind', (call) => {
      if (scanned && call.body.code === 'second') setting = { ...stored, notify_type: 'wxpusher', wxpusher_uid: 'UID_alice' };
      return { body: { success: true, message: '', data: { bound: scanned } } };
    });
    open();
    await chooseMethod('WxPusher');
    await click('绑定 WxPusher');

    // The first code is already past its expiry: the console says so and offers a fresh one.
    expect(await screen.findByText('二维码已过期，请刷新')).toBeInTheDocument();
    expect(screen.getByText('我已扫码').closest('button')).toBeDisabled();
    await click('刷新二维码');
    expect(await screen.findByText(/^二维码有效期至 /)).toBeInTheDocument();
    expect(fake.callsTo('GET', '/api/user/wxpusher/qrcode')).toHaveLength(2);
    expect(document.querySelector('.ant-qrcode svg')).not.toBeNull();

    await click('我已扫码');
    expect(await screen.findByText('还未扫码，请用微信扫描二维码')).toBeInTheDocument();
    scanned = true;
    await click('我已扫码');
    expect(await screen.findByText('WxPusher 绑定成功！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/wxpusher/bind').at(-1)!.body).toEqual({ code: 'second' });
    expect(await screen.findByText('已绑定 WxPusher：UID_alice')).toBeInTheDocument();
  });
});
