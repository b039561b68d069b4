import { screen, waitFor } from '@testing-library/react';
import { useEffect } from 'react';
import { api } from '../src/api/api';
import { signedIn, signedOut } from '../src/app/session';
import { makeUser, renderPage, setupFakeApi, stubClipboard } from './render';

const probeApi = api.injectEndpoints({
  endpoints: (build) => ({
    probe: build.query<unknown, string>({ query: (path) => path }),
    probeEnvelope: build.query<{ data: unknown; message: string }, string>({
      query: (path) => path,
      transformResponse: (data: unknown, meta) => ({ data, message: meta?.message ?? '' }),
    }),
  }),
});

function Probe({ path }: { path: string }) {
  const { data, error } = probeApi.useProbeQuery(path);
  return <div>{data !== undefined ? `data:${JSON.stringify(data)}` : error ? `error:${JSON.stringify(error)}` : 'loading'}</div>;
}

const fake = setupFakeApi();

describe('the envelope base query', () => {
  it('unwraps data and sends the user id header and no-store', async () => {
    fake.ok('GET', '/api/thing', { a: 1 });
    renderPage(<Probe path="/thing" />, { user: makeUser({ id: 42 }) });
    expect(await screen.findByText('data:{"a":1}')).toBeInTheDocument();
    const call = fake.callsTo('GET', '/api/thing')[0]!;
    expect(call.headers.get('New-Api-User')).toBe('42');
    expect(call.headers.get('Cache-Control')).toBe('no-store');
    expect(call.headers.get('Accept-Language')).toBe('zh-CN');
  });

  it('sends the chosen console language as Accept-Language (the server writes mails in it)', async () => {
    fake.ok('GET', '/api/thing', 1);
    renderPage(<Probe path="/thing" />, { locale: 'en-US' });
    expect(await screen.findByText('data:1')).toBeInTheDocument();
    expect(fake.callsTo('GET', '/api/thing')[0]!.headers.get('Accept-Language')).toBe('en-US');
  });

  it('gives endpoints the whole envelope when they ask', async () => {
    fake.ok('GET', '/api/thing', 5, 'bind');
    function EnvelopeProbe() {
      const { data } = probeApi.useProbeEnvelopeQuery('/thing');
      return <div>{data ? `${data.message}:${String(data.data)}` : 'loading'}</div>;
    }
    renderPage(<EnvelopeProbe />);
    expect(await screen.findByText('bind:5')).toBeInTheDocument();
  });

  it('turns success: false into an error toast with the server message', async () => {
    fake.fail('GET', '/api/thing', 'insufficient permissions');
    renderPage(<Probe path="/thing" />);
    expect(await screen.findByText('insufficient permissions')).toBeInTheDocument();
    expect(await screen.findByText(/error:.*BUSINESS/)).toBeInTheDocument();
  });

  it('on 401 clears the stored user and goes to /login?expired=true', async () => {
    fake.status('GET', '/api/thing', 401);
    localStorage.setItem('user', JSON.stringify(makeUser()));
    const { router, store } = renderPage(<Probe path="/thing" />, { route: '/setting', user: makeUser() });
    await waitFor(() => expect(router.state.location.pathname + router.state.location.search).toBe('/login?expired=true'));
    expect(store.getState().session.user).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
  });

  it('drops every cached answer when the session ends and when someone signs in', async () => {
    fake.ok('GET', '/api/cached', { secret: 'of the previous user' });
    const { store } = renderPage(<Probe path="/cached" />, { user: makeUser() });
    expect(await screen.findByText(/secret/)).toBeInTheDocument();
    const cachedAnswers = () => Object.values(store.getState().api.queries).filter((query) => query?.data !== undefined);
    expect(cachedAnswers()).toHaveLength(1);
    // Checked in the same tick: a page still mounted fetches again right after.
    store.dispatch(signedOut({ expired: true }));
    expect(cachedAnswers()).toEqual([]);
    await screen.findByText(/secret/);
    store.dispatch(signedIn(makeUser({ id: 7 })));
    expect(cachedAnswers()).toEqual([]);
  });

  it("shows the spec message when the server cannot be reached, not the browser's words", async () => {
    fake.on('GET', '/api/thing', () => {
      throw new TypeError('Failed to fetch');
    });
    renderPage(<Probe path="/thing" />);
    expect(await screen.findByText('无法连接到服务器')).toBeInTheDocument();
    expect(screen.queryByText('TypeError: Failed to fetch')).not.toBeInTheDocument();
  });

  it("shows an answer without the envelope (a proxy's error page) as a failure", async () => {
    fake.on('GET', '/api/thing', () => ({ response: new Response('<html>bad gateway</html>', { status: 200, headers: { 'content-type': 'text/html' } }) }));
    renderPage(<Probe path="/thing" />);
    expect(await screen.findByText('服务器的响应无法识别，请稍后再试')).toBeInTheDocument();
  });

  it('stays quiet on a 401 when nobody is signed in (a call still in flight after logout)', async () => {
    fake.status('GET', '/api/thing', 401);
    const { router } = renderPage(<Probe path="/thing" />, { route: '/login', user: null });
    expect(await screen.findByText(/error:.*401/)).toBeInTheDocument();
    expect(router.state.location.search).toBe('');
  });

  it.each([
    [429, '请求次数过多，请稍后再试！'],
    [500, '服务器内部错误，请联系管理员！'],
    [405, '本站仅作演示之用，无服务端！'],
  ])('shows the spec message for HTTP %i', async (status, text) => {
    fake.status('GET', '/api/thing', status);
    renderPage(<Probe path="/thing" />);
    expect(await screen.findByText(text)).toBeInTheDocument();
  });

  it('shows the message of any other HTTP failure', async () => {
    fake.status('GET', '/api/thing', 403, { success: false, message: 'insufficient permissions (403)' });
    renderPage(<Probe path="/thing" />);
    expect(await screen.findByText('insufficient permissions (403)')).toBeInTheDocument();
  });

  it('speaks English for the spec messages when English is chosen', async () => {
    fake.status('GET', '/api/thing', 429);
    renderPage(<Probe path="/thing" />, { locale: 'en-US' });
    expect(await screen.findByText('Too many requests, try again later')).toBeInTheDocument();
  });
});

describe('the clipboard helper', () => {
  it('opens the manual-copy dialog when the browser refuses', async () => {
    const { copyText } = await import('../src/lib/clipboard');
    stubClipboard(() => Promise.reject(new Error('denied')));
    function Copier() {
      useEffect(() => void copyText('sk-copy-me'), []);
      return null;
    }
    renderPage(<Copier />);
    expect((await screen.findAllByText('无法复制到剪贴板，请手动复制')).length).toBeGreaterThan(0);
    expect(screen.getByDisplayValue('sk-copy-me')).toBeInTheDocument();
  });
});
