import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Role } from '@aigw/contracts';
import { routes } from '../src/app/routes';
import { sideMenuItems } from '../src/layout/menu-items';
import { accessOf } from '../src/access';
import { makeUser, renderPage, setupFakeApi, testStatus } from './render';

const fake = setupFakeApi();
beforeEach(() => {
  fake.ok('POST', '/api/user/logout');
  fake.ok('GET', '/api/home_page_content', '');
  fake.ok('GET', '/api/about', '');
});

const keys = (role: number | null, status = testStatus) => sideMenuItems(accessOf(role === null ? null : { role }), status).map((item) => item.key);

describe('side menu visibility', () => {
  it('shows ordinary users their items only', () => {
    expect(keys(Role.Common)).toEqual(['/playground', '/token', '/detail', '/topup', '/log', '/midjourney', '/task', '/setting']);
  });

  it('adds channels, redemption codes and users for admins', () => {
    expect(keys(Role.Admin)).toEqual([
      '/playground',
      '/channel',
      '/token',
      '/detail',
      '/redemption',
      '/topup',
      '/user',
      '/log',
      '/midjourney',
      '/task',
      '/setting',
    ]);
    expect(keys(Role.Root)).toEqual(keys(Role.Admin));
  });

  it('follows the server flags for the dashboard, drawing, tasks and chat links', () => {
    const status = {
      ...testStatus,
      enable_data_export: false,
      enable_drawing: false,
      enable_task: false,
      chats: [{ NextChat: 'https://x/?k={key}' }, { Lobe: 'https://y' }] as Array<Record<string, string>>,
    };
    const items = sideMenuItems(accessOf({ role: Role.Common }), status);
    expect(items.map((item) => item.key)).toEqual(['/playground', 'chat', '/token', '/topup', '/log', '/setting']);
    expect(items.find((item) => item.key === 'chat')!.children).toEqual([
      { key: '/chat/0', label: 'NextChat' },
      { key: '/chat/1', label: 'Lobe' },
    ]);
  });
});

describe('route guards', () => {
  it('sends a visitor without a stored user to /login', async () => {
    const { router } = renderPage(<></>, { routes, route: '/setting', user: null });
    // The first render loads the lazy route modules; a loaded machine needs more than the default second.
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'), { timeout: 5_000 });
  });

  it('refuses admin screens to ordinary users', async () => {
    renderPage(<></>, { routes, route: '/user', user: makeUser({ role: Role.Common }) });
    expect(await screen.findByText('无权访问')).toBeInTheDocument();
  });

  it('shows the not-found page for unknown paths', async () => {
    renderPage(<></>, { routes, route: '/no/such/page', user: null });
    expect(await screen.findByText('页面不存在，请检查你的浏览器地址是否正确')).toBeInTheDocument();
  });

  it('renders the side menu for a signed-in admin with the admin items', async () => {
    renderPage(<></>, { routes, route: '/no-such', user: makeUser({ role: Role.Admin }) });
    const menu = await screen.findByRole('menu', { name: '' }).catch(() => null);
    const side = menu ?? document.querySelector('.ant-layout-sider')!;
    expect(within(side).getByText('用户管理')).toBeInTheDocument();
    expect(within(side).getByText('渠道')).toBeInTheDocument();
  });

  it('signs out with a POST (rule R12) and goes to /login', async () => {
    const { router, store } = renderPage(<></>, { routes, route: '/no-such', user: makeUser({ role: Role.Common }) });
    await userEvent.click(await screen.findByRole('button', { name: /退\s*出/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(fake.callsTo('POST', '/api/user/logout')).toHaveLength(1);
    expect(store.getState().session.user).toBeNull();
  });

  it('hides admin items from ordinary users in the rendered menu', async () => {
    renderPage(<></>, { routes, route: '/no-such', user: makeUser({ role: Role.Common }) });
    await screen.findByText('页面不存在，请检查你的浏览器地址是否正确');
    const side = document.querySelector('.ant-layout-sider') as HTMLElement;
    expect(within(side).getByText('令牌')).toBeInTheDocument();
    expect(within(side).queryByText('用户管理')).not.toBeInTheDocument();
    expect(within(side).queryByText('渠道')).not.toBeInTheDocument();
  });
});
