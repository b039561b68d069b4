import { screen, waitFor } from '@testing-library/react';
import { ChatPage } from '../src/features/chat/ChatPage';
import { chatTarget } from '../src/features/chat/ChatRedirectPage';
import { fillChatLink } from '../src/lib/chat-links';
import { makeUser, renderPage, setupFakeApi } from './render';

const nextChat = 'https://app.nextchat.dev/#/?settings={"key":"{key}","url":"{address}"}';

describe('chat links', () => {
  it('fills the whole key and the address, without its trailing slash and URL-encoded', () => {
    expect(fillChatLink(nextChat, 'sk-abc', 'https://gw.example.com/')).toBe(
      'https://app.nextchat.dev/#/?settings={"key":"sk-abc","url":"https%3A%2F%2Fgw.example.com"}',
    );
    // An address with a query or a path of its own cannot break out of the client's parameter.
    expect(fillChatLink('ama://set-api-key?server={address}&key={key}', 'abc', 'https://gw.example.com/a?b=1&c=2')).toBe(
      'ama://set-api-key?server=https%3A%2F%2Fgw.example.com%2Fa%3Fb%3D1%26c%3D2&key=sk-abc',
    );
    expect(fillChatLink('https://x/{key}/{key}', 'sk-abc', '')).toBe('https://x/sk-abc/sk-abc');
    expect(chatTarget('', [{ url: 'https://a/{key}' }])).toBe('https://a/{key}');
    expect(chatTarget('https://chat.example.com/', [])).toBe('https://chat.example.com/#/?settings={"key":"{key}","url":"{address}"}');
    expect(chatTarget('', [])).toBeUndefined();
  });
});

describe('chat page', () => {
  const fake = setupFakeApi();

  it('embeds the chosen client with the first enabled token', async () => {
    fake.ok('GET', '/api/token/', {
      items: [
        { id: 3, status: 2 },
        { id: 4, status: 1 },
      ],
      total: 2,
      page: 1,
      page_size: 100,
    });
    fake.ok('POST', '/api/token/4/key', { key: 'sk-full-key' });
    renderPage(<ChatPage />, {
      user: makeUser(),
      route: '/chat/1',
      path: '/chat/:id?',
      status: { server_address: 'https://gw.example.com', chats: [{ Other: 'https://x/{key}' }, { NextChat: nextChat }] },
    });
    const frame = await screen.findByTitle('NextChat');
    expect(frame).toHaveAttribute('src', 'https://app.nextchat.dev/#/?settings={"key":"sk-full-key","url":"https%3A%2F%2Fgw.example.com"}');
    expect(fake.callsTo('GET', '/api/token/')[0]!.query.get('size')).toBe('100');
  });

  it('asks for chat links when none are configured', async () => {
    renderPage(<ChatPage />, { user: makeUser(), route: '/chat', path: '/chat/:id?', status: { chats: [] } });
    expect(await screen.findByText('请联系管理员配置聊天链接')).toBeInTheDocument();
  });

  it('reports a misconfigured link', async () => {
    renderPage(<ChatPage />, { user: makeUser(), route: '/chat/5', path: '/chat/:id?', status: { chats: [{ A: 'https://a/{key}' }] } });
    expect(await screen.findByText('聊天链接配置错误，请联系管理员')).toBeInTheDocument();
  });

  it('sends a user without an enabled token to /token', async () => {
    fake.ok('GET', '/api/token/', { items: [], total: 0, page: 1, page_size: 100 });
    const { router } = renderPage(<ChatPage />, { user: makeUser(), route: '/chat/0', path: '/chat/:id?', status: { chats: [{ A: 'https://a/{key}' }] } });
    expect(await screen.findByText('当前没有可用的启用令牌，请确认是否有令牌处于启用状态！')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'), { timeout: 3000 });
  });
});
