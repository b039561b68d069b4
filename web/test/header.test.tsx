import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MOBILE_QUERY } from '../src/app/media';
import { HeaderBar } from '../src/layout/HeaderBar';
import { makeUser, renderPage, setupFakeApi } from './render';

const fake = setupFakeApi();

/** A phone-sized viewport: the header's buttons show only their icons. */
function onMobile() {
  const desktop = window.matchMedia;
  beforeEach(() => {
    window.matchMedia = (query: string) => ({ ...desktop(query), matches: query === MOBILE_QUERY });
  });
  afterEach(() => {
    window.matchMedia = desktop;
  });
}

describe('header on mobile', () => {
  onMobile();

  it('names the icon-only logout button, in each language', async () => {
    const { unmount } = renderPage(<HeaderBar />, { user: makeUser() });
    expect(await screen.findByRole('button', { name: '退出' })).toBeInTheDocument();
    expect(screen.queryByText('退出')).not.toBeInTheDocument();
    unmount();

    renderPage(<HeaderBar />, { user: makeUser(), locale: 'en-US' });
    expect(await screen.findByRole('button', { name: 'Log out' })).toBeInTheDocument();
  });

  it('logs out from the named button', async () => {
    fake.ok('POST', '/api/user/logout');
    const { store } = renderPage(<HeaderBar />, { user: makeUser() });
    await userEvent.click(screen.getByRole('button', { name: '退出' }));
    await waitFor(() => expect(store.getState().session.user).toBeNull());
    expect(fake.callsTo('POST', '/api/user/logout')).toHaveLength(1);
  });
});

describe('header on desktop', () => {
  it('shows the logout label as the button text', async () => {
    renderPage(<HeaderBar />, { user: makeUser() });
    expect(await screen.findByRole('button', { name: '退出' })).toHaveTextContent('退出');
  });
});
