import type { ReactElement } from 'react';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { PAGE_SIZE_DEFAULT, Role, type Status, type User } from '@aigw/contracts';
import { AppProviders } from '../src/app/AppProviders';
import { setNavigate } from '../src/app/navigation';
import type { LocaleCode } from '../src/app/preferences';
import { createStore } from '../src/app/store';
import { FakeApi } from './fake-api';

export const testStatus: Status = {
  version: '0.1.0',
  start_time: 0,
  system_name: 'AI Gateway',
  logo: '',
  footer_html: '',
  server_address: 'http://localhost:3000',
  docs_link: '',
  top_up_link: '',
  quota_per_unit: 500000,
  display_in_currency: true,
  enable_batch_update: false,
  enable_drawing: true,
  enable_task: true,
  enable_data_export: true,
  data_export_default_time: 'hour',
  default_collapse_sidebar: false,
  enable_online_topup: false,
  price: 7.3,
  min_topup: 1,
  mj_notify_enabled: false,
  chats: [],
  chat_link: '',
  chat_link2: '',
  demo_site_enabled: false,
  self_use_mode_enabled: false,
  setup: true,
  password_login_enabled: true,
  password_register_enabled: true,
  register_enabled: true,
  email_verification: false,
  github_oauth: false,
  github_client_id: '',
  linuxdo_oauth: false,
  linuxdo_client_id: '',
  oidc_enabled: false,
  oidc_client_id: '',
  oidc_authorization_endpoint: '',
  telegram_oauth: false,
  telegram_bot_name: '',
  wechat_login: false,
  wechat_qrcode: '',
  turnstile_check: false,
  turnstile_site_key: '',
  passkey_login: false,
  passkey_display_name: '',
  passkey_rp_id: '',
  passkey_origins: '',
  passkey_allow_insecure: false,
  passkey_user_verification: 'preferred',
  passkey_attachment: '',
};

export function makeUser(overrides: Partial<User> = {}): User {
  return {
    id: 2,
    username: 'alice',
    display_name: 'Alice',
    email: '',
    github_id: '',
    wechat_id: '',
    telegram_id: '',
    linux_do_id: '',
    role: Role.Common,
    status: 1,
    group: 'default',
    rate_limits: {},
    aff_code: 'abcd',
    inviter_id: 0,
    quota: 1_000_000,
    used_quota: 0,
    request_count: 0,
    aff_count: 0,
    aff_quota: 0,
    aff_history_quota: 0,
    DeletedAt: null,
    ...overrides,
  };
}

export interface RenderOptions {
  /** The URL the page opens at (default '/'). */
  route?: string;
  /** The route pattern of the page (default '*'), for pages that read params. */
  path?: string;
  user?: User | null;
  status?: Partial<Status> | null;
  locale?: LocaleCode;
  /** Further routes, e.g. guards around the page. */
  routes?: RouteObject[];
}

/** Renders `ui` inside the console's providers, a memory router and a fresh store. */
export function renderPage(ui: ReactElement, options: RenderOptions = {}) {
  const store = createStore(
    {
      session: { user: options.user ?? null, status: options.status === null ? null : { ...testStatus, ...options.status }, expired: false },
      preferences: { locale: options.locale ?? 'zh-CN', themeMode: 'light', pageSize: PAGE_SIZE_DEFAULT, sidebarCollapsed: null },
    },
    { developmentChecks: false },
  );
  const router = createMemoryRouter(options.routes ?? [{ path: options.path ?? '*', element: ui }], { initialEntries: [options.route ?? '/'] });
  setNavigate((to, navigateOptions) => void router.navigate(to, navigateOptions));
  const view = render(
    <AppProviders store={store}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...view, store, router };
}

/**
 * The setup every component test shares: before each test (of the file, or of the describe block
 * it is called in) the returned FakeApi starts empty and answers fetch, and browser storage is
 * cleared; after it, fetch is restored. Call it first: a file's own beforeEach, registered after
 * it, then adds the routes its tests share.
 */
export function setupFakeApi(): FakeApi {
  const fake = new FakeApi();
  beforeEach(() => {
    fake.reset().install();
    localStorage.clear();
  });
  afterEach(() => fake.restore());
  return fake;
}

/**
 * The browser clipboard, as a mock: every write succeeds unless `write` says otherwise (a refusal
 * opens the console's manual-copy dialog). Returns the `writeText` mock to read what was copied.
 */
export function stubClipboard(write: (text: string) => Promise<void> = () => Promise.resolve()): jest.Mock {
  const writeText = jest.fn(write);
  Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } });
  return writeText;
}
