import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AboutPage } from '../src/features/home/AboutPage';
import { HomePage } from '../src/features/home/HomePage';
import { renderPage, setupFakeApi } from './render';

const fake = setupFakeApi();
beforeEach(() => {
  (window as unknown as { __pwned?: boolean }).__pwned = false;
});

describe('home and about', () => {
  it('renders the home page markdown sanitized', async () => {
    fake.ok('GET', '/api/home_page_content', '# Welcome\n\n<img src=x onerror="window.__pwned=true"><script>window.__pwned=true</script>**bold**');
    fake.ok('GET', '/api/notice', '');
    renderPage(<HomePage />);
    expect(await screen.findByRole('heading', { name: 'Welcome' })).toBeInTheDocument();
    expect(screen.getByText('bold').tagName).toBe('STRONG');
    expect(document.querySelector('script')).toBeNull();
    expect(document.querySelector('img')?.getAttribute('onerror')).toBeNull();
    expect((window as unknown as { __pwned?: boolean }).__pwned).toBe(false);
  });

  it('shows a URL in a frame', async () => {
    fake.ok('GET', '/api/about', 'https://example.com/about');
    renderPage(<AboutPage />);
    expect(await screen.findByTitle('关于')).toHaveAttribute('src', 'https://example.com/about');
  });

  it('shows a welcome with the API address when no content is set', async () => {
    fake.ok('GET', '/api/home_page_content', '');
    fake.ok('GET', '/api/notice', '');
    renderPage(<HomePage />, { status: { server_address: 'https://gw.example.com' } });
    expect(await screen.findByText('https://gw.example.com/v1')).toBeInTheDocument();
  });

  it('shows the notice once a day after closing it for today', async () => {
    fake.ok('GET', '/api/home_page_content', '');
    fake.ok('GET', '/api/notice', 'Maintenance **tonight**');
    const first = renderPage(<HomePage />);
    expect(await screen.findByText('tonight')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: '今日关闭' }));
    first.unmount();
    renderPage(<HomePage />);
    await screen.findByText('开始使用');
    expect(screen.queryByText('tonight')).not.toBeInTheDocument();
  });
});
