import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { PlaygroundPage } from '../src/features/playground/PlaygroundPage';
import { readPayload, splitSseEvents } from '../src/features/playground/stream-chat';
import { makeUser, renderPage, setupFakeApi } from './render';

const sse = (events: string[]) =>
  new Response(
    new ReadableStream({
      start(controller) {
        for (const event of events) controller.enqueue(new TextEncoder().encode(event));
        controller.close();
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  );

const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`;

describe('playground stream parsing', () => {
  it('splits complete events and keeps the unfinished rest', () => {
    expect(splitSseEvents('data: a\n\ndata: b\r\n\r\ndata: c')).toEqual({ payloads: ['a', 'b'], rest: 'data: c' });
    expect(splitSseEvents(': comment\n\ndata: x\n\n')).toEqual({ payloads: ['x'], rest: '' });
  });

  it('ends at the done marker or an empty choices list, and fails on bad JSON', () => {
    expect(readPayload('[DONE]')).toEqual({ done: true });
    expect(readPayload('{"choices":[],"usage":{"total_tokens":3}}')).toEqual({ done: true });
    expect(readPayload('{"choices":[{"delta":{"content":"hi"}}]}')).toEqual({ done: false, text: 'hi' });
    expect(() => readPayload('{oops')).toThrow();
  });
});

describe('playground page', () => {
  const fake = setupFakeApi();
  const user = makeUser({ id: 9, group: 'default' });

  beforeEach(() => {
    fake.ok('GET', '/api/token/', { items: [{ id: 1, status: 1 }], total: 1, page: 1, page_size: 100 });
    fake.ok('GET', '/api/user/self/groups', { default: { desc: 'default group', ratio: 1 }, vip: { desc: 'vip', ratio: 2 } });
    fake.ok('GET', '/api/user/models', ['gpt-4o-mini', 'gpt-4o']);
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('streams a reply: loading, then generating, then complete, with the settings in the body', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fake.on('POST', '/pg/chat/completions', async () => ({
      response: new Response(
        new ReadableStream({
          async start(controller) {
            controller.enqueue(new TextEncoder().encode(chunk('Hel')));
            await gate;
            controller.enqueue(new TextEncoder().encode(chunk('lo!') + 'data: [DONE]\n\n'));
            controller.close();
          },
        }),
      ),
    }));
    renderPage(<PlaygroundPage />, { user });
    await userEvent.type(screen.getByPlaceholderText('输入消息，Enter 发送，Shift+Enter 换行'), 'Say hello');
    await userEvent.click(screen.getByRole('button', { name: /发\s*送/ }));
    expect(await screen.findByText('Hel')).toBeInTheDocument();
    expect(screen.getByText('生成中')).toBeInTheDocument();
    act(() => release());
    expect(await screen.findByText('Hello!')).toBeInTheDocument();
    expect(await screen.findByText('已完成')).toBeInTheDocument();
    const call = fake.callsTo('POST', '/pg/chat/completions')[0]!;
    expect(call.body).toEqual({ messages: [{ role: 'user', content: 'Say hello' }], stream: true, model: 'gpt-4o-mini', group: 'default', temperature: 0.7 });
    expect(call.headers.get('New-Api-User')).toBe('9');
  });

  it('sends the system prompt and max tokens when set, and ends on an empty choices list', async () => {
    fake.on('POST', '/pg/chat/completions', () => ({ response: sse([chunk('ok'), 'data: {"choices":[],"usage":{}}\n\n', chunk('never shown')]) }));
    renderPage(<PlaygroundPage />, { user });
    await userEvent.type(screen.getByPlaceholderText('例如：你是一个乐于助人的助手。'), 'Be brief');
    const maxTokens = screen.getByRole('spinbutton');
    await userEvent.clear(maxTokens);
    await userEvent.type(maxTokens, '64');
    await userEvent.type(screen.getByPlaceholderText('输入消息，Enter 发送，Shift+Enter 换行'), 'Hi{Enter}');
    expect(await screen.findByText('已完成')).toBeInTheDocument();
    expect(screen.queryByText(/never shown/)).not.toBeInTheDocument();
    expect(fake.callsTo('POST', '/pg/chat/completions')[0]!.body).toMatchObject({
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: 'Hi' },
      ],
      max_tokens: 64,
    });
  });

  it('puts an upstream error into the reply and marks it', async () => {
    fake.on('POST', '/pg/chat/completions', () => ({
      status: 503,
      body: { error: { message: 'no available channel for model gpt-4o-mini', type: 'new_api_error' } },
    }));
    renderPage(<PlaygroundPage />, { user });
    await userEvent.type(screen.getByPlaceholderText('输入消息，Enter 发送，Shift+Enter 换行'), 'Hi{Enter}');
    expect(await screen.findByText('no available channel for model gpt-4o-mini')).toBeInTheDocument();
    expect(screen.getByText('出错')).toBeInTheDocument();
  });

  it('says so when the stream cannot be parsed', async () => {
    fake.on('POST', '/pg/chat/completions', () => ({ response: sse(['data: {broken\n\n']) }));
    renderPage(<PlaygroundPage />, { user });
    await userEvent.type(screen.getByPlaceholderText('输入消息，Enter 发送，Shift+Enter 换行'), 'Hi{Enter}');
    expect(await screen.findByText('聊天数据解析失败')).toBeInTheDocument();
  });

  it('sends a user without an enabled token to /token after 1.5 s', async () => {
    fake.ok('GET', '/api/token/', { items: [{ id: 1, status: 2 }], total: 1, page: 1, page_size: 100 });
    const { router } = renderPage(<PlaygroundPage />, { user, route: '/playground' });
    expect(await screen.findByText('当前没有可用的启用令牌，请确认是否有令牌处于启用状态！')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/playground');
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'), { timeout: 3000 });
  });
});
