import type { ComponentType } from 'react';
import { configure, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Role } from '@aigw/contracts';
import { AboutCard, FooterCard, HomePageCard, LogoCard, NoticeCard, SystemNameCard } from '../src/features/settings/other/ContentCards';
import { OtherTab } from '../src/features/settings/other/OtherTab';
import { makeUser, renderPage, setupFakeApi } from './render';

// Saving goes through the API and a toast: give a loaded machine more than the default second.
configure({ asyncUtilTimeout: 5000 });

const root = makeUser({ id: 1, username: 'root', role: Role.Root });
const fake = setupFakeApi();

const hostile = '<img src="x" onerror="window.__hacked = 1"><script>window.__hacked = 2</script>';

const baseOptions: Record<string, string> = {
  Notice: `**Maintenance** tonight ${hostile}`,
  SystemName: 'New API',
  Logo: 'https://cdn.example.com/logo.png',
  HomePageContent: '',
  About: '',
  Footer: '<a href="javascript:alert(1)" onclick="alert(2)">Terms</a> <b>ACME</b>',
};

function serve(overrides: Record<string, string> = {}) {
  const options = { ...baseOptions, ...overrides };
  fake.on('GET', '/api/option/', () => ({ body: { success: true, message: '', data: Object.entries(options).map(([key, value]) => ({ key, value })) } }));
  fake.on('PUT', '/api/option/', (call) => {
    options[call.body.key] = call.body.value;
    return { body: { success: true, message: '' } };
  });
}

beforeEach(() => {
  serve();
  delete (window as { __hacked?: number }).__hacked;
});

const puts = () => fake.callsTo('PUT', '/api/option/').map((call) => call.body);
const preview = (name: string) => screen.findByTestId(`preview-${name}`);

async function replace(label: string, text: string) {
  const input = await screen.findByLabelText(label);
  fireEvent.change(input, { target: { value: text } });
  return input;
}

/** Nothing executable reached the page: no script element, no inline handler, no javascript: link. */
function expectNoActiveContent() {
  expect(document.querySelector('script')).toBeNull();
  expect(document.querySelector('[onerror], [onclick], [onload]')).toBeNull();
  expect(document.querySelector('[href^="javascript:"], [src^="javascript:"]')).toBeNull();
  expect((window as { __hacked?: number }).__hacked).toBeUndefined();
}

describe('other settings tab', () => {
  it('shows every card with its save button', async () => {
    renderPage(<OtherTab />, { user: root });
    // By text: role queries over the whole tab are slow in jsdom.
    for (const button of ['设置公告', '设置系统名称', '设置 Logo', '设置首页内容', '设置关于', '设置页脚']) {
      expect((await screen.findByText(button)).closest('button')).toBeInTheDocument();
    }
    expect(fake.callsTo('GET', '/api/option/')).toHaveLength(1);
  });

  it('previews the stored notice as markdown, without its script or handler', async () => {
    renderPage(<NoticeCard />, { user: root });
    const notice = await preview('Notice');
    expect(notice.querySelector('strong')).toHaveTextContent('Maintenance');
    expect(notice.querySelector('img')).toHaveAttribute('src', 'x');
    expectNoActiveContent();
  });

  it('previews the stored footer as sanitized HTML', async () => {
    renderPage(<FooterCard />, { user: root });
    const footer = await preview('Footer');
    expect(footer.querySelector('b')).toHaveTextContent('ACME');
    expect(footer.querySelector('a')).toHaveTextContent('Terms');
    expect(footer.querySelector('a')).not.toHaveAttribute('href');
    expectNoActiveContent();
  });

  it('follows the text as it is typed, still sanitized', async () => {
    serve({ Notice: '', Footer: '' });
    renderPage(<OtherTab />, { user: root });
    await screen.findByLabelText('公告');
    expect(screen.queryByTestId('preview-Notice')).not.toBeInTheDocument();
    await replace('公告', `# Hello\n${hostile}`);
    expect((await preview('Notice')).querySelector('h1')).toHaveTextContent('Hello');
    await replace('首页内容', `Welcome <svg onload="window.__hacked = 3"></svg>${hostile}`);
    expect(await preview('HomePageContent')).toHaveTextContent('Welcome');
    await replace('关于', `<iframe src="javascript:alert(1)"></iframe>About us${hostile}`);
    expect(await preview('About')).toHaveTextContent('About us');
    expect((await preview('About')).querySelector('iframe')).toBeNull();
    await replace('页脚', `<p onclick="alert(1)">Footer</p>${hostile}`);
    expect((await preview('Footer')).querySelector('p')).toHaveTextContent('Footer');
    expectNoActiveContent();
  });

  it('shows a home page given as a URL in a frame', async () => {
    serve({ HomePageContent: 'https://home.example.com/' });
    renderPage(<HomePageCard />, { user: root });
    const frame = (await preview('HomePageContent')).querySelector('iframe');
    expect(frame).toHaveAttribute('src', 'https://home.example.com/');
  });

  it('previews the logo only for a web address', async () => {
    renderPage(<LogoCard />, { user: root });
    expect((await preview('Logo')).querySelector('img')).toHaveAttribute('src', 'https://cdn.example.com/logo.png');
    await replace('Logo 图片地址', 'javascript:alert(1)');
    await waitFor(async () => expect((await preview('Logo')).querySelector('img')).toBeNull());
    expectNoActiveContent();
  });

  const cards: Array<[string, ComponentType, string, string, string]> = [
    ['公告', NoticeCard, '设置公告', 'Notice', 'New notice'],
    ['系统名称', SystemNameCard, '设置系统名称', 'SystemName', 'My Gateway'],
    ['Logo 图片地址', LogoCard, '设置 Logo', 'Logo', 'https://cdn.example.com/new.png'],
    ['首页内容', HomePageCard, '设置首页内容', 'HomePageContent', '# Welcome'],
    ['关于', AboutCard, '设置关于', 'About', 'https://about.example.com'],
    ['页脚', FooterCard, '设置页脚', 'Footer', '<b>ACME</b> 2025'],
  ];

  it.each(cards)('the %s card saves its own setting', async (label, Card, button, key, value) => {
    renderPage(<Card />, { user: root });
    await replace(label, value);
    await userEvent.click(screen.getByRole('button', { name: button }));
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([{ key, value }]);
  });

  it('says so when a card is saved unchanged', async () => {
    renderPage(<SystemNameCard />, { user: root });
    await userEvent.click(await screen.findByRole('button', { name: '设置系统名称' }));
    expect(await screen.findByText('你似乎并没有修改什么')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('refuses a system name longer than 64 characters', async () => {
    renderPage(<SystemNameCard />, { user: root });
    // The input's own limit stops typing; a pasted value still meets the contracts' check.
    await replace('系统名称', 'x'.repeat(65));
    await userEvent.click(screen.getByRole('button', { name: '设置系统名称' }));
    expect(await screen.findByText('请检查输入')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });
});
