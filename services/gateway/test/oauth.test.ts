import type { LightMyRequestResponse } from 'fastify';
import { declaredRoutes } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { ECHO_CODE, startFakeOAuthProvider, type FakeOAuthProvider } from '../../identity/test/support/oauth-provider';
import { isCriticalPath } from '../src/rate-limit';
import { ROOT_PASSWORD, startGateway, type CallOptions, type Session, type TestGateway } from './support/gateway';

const secrets = {
  GitHubClientSecret: 'gh-secret-4f1c9a7e',
  LinuxDOClientSecret: 'ld-secret-8b2d6e10',
  'oidc.client_secret': 'oidc-secret-c0ffee99',
  WeChatServerToken: 'wx-token-5a5a5a5a',
};

describe.each(backends)('third-party login (%s)', (backend) => {
  let gateway: TestGateway;
  let fake: FakeOAuthProvider;
  let root: Session;
  /** Every answer the gateway gave in this file: none may carry a secret. */
  const answers: string[] = [];
  let codes = 0;

  const call = async (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, options?: CallOptions): Promise<LightMyRequestResponse> => {
    const response = await gateway.call(method, url, options);
    answers.push(response.body);
    return response;
  };
  const setOption = async (key: string, value: string) => {
    const answer = (await call('PUT', '/api/option/', { session: root, body: { key, value } })).json();
    if (!answer.success) throw new Error(`option ${key}: ${answer.message}`);
  };
  /** A state, with the cookie that ties it to the browser that asked for it. */
  const newState = async (aff?: string) => {
    const response = await call('GET', `/api/oauth/state${aff ? `?aff=${aff}` : ''}`);
    const state = response.json().data as string;
    expect(response.cookies.find((cookie) => cookie.name === 'oauth_state')).toMatchObject({ value: state, httpOnly: true, sameSite: 'Strict' });
    return state;
  };
  /** A fresh code the fake will trade once for `user`. */
  const grant = (user: Record<string, unknown>) => {
    const code = `code-${++codes}`;
    fake.grant(code, user);
    return code;
  };
  /** `browserState`: the state cookie the browser sends (default: the state's own; null: none). */
  const callback = async (provider: string, code: string, options: { state?: string; session?: Session; browserState?: string | null } = {}) => {
    const state = options.state ?? (await newState());
    const browserState = options.browserState === undefined ? state : options.browserState;
    const headers: Record<string, string> = browserState ? { cookie: `oauth_state=${browserState}` } : {};
    return call('GET', `/api/oauth/${provider}?code=${code}&state=${state}`, { session: options.session, headers });
  };
  const sessionOf = (response: LightMyRequestResponse): Session => ({
    id: response.json().data.id,
    cookie: response.cookies.find((cookie) => cookie.name === 'session')!.value,
  });
  const self = async (session: Session) => (await call('GET', '/api/user/self', { session })).json().data;

  beforeAll(async () => {
    fake = await startFakeOAuthProvider();
    gateway = await startGateway(backend, {}, undefined, { oauthEndpoints: { github: fake.url, githubApi: fake.url, linuxdo: fake.url } });
    root = await gateway.login('root', ROOT_PASSWORD);
    // The fake listens on loopback, which the egress guard refuses unless root allows private networks.
    await setOption('AllowPrivateNetworkUpstreams', 'true');
    for (const [key, value] of Object.entries(secrets)) await setOption(key, value);
    await setOption('GitHubClientId', 'gh-client');
    await setOption('GitHubOAuthEnabled', 'true');
    await setOption('LinuxDOClientId', 'ld-client');
    await setOption('LinuxDOOAuthEnabled', 'true');
    await setOption('oidc.client_id', 'oidc-client');
    await setOption('oidc.authorization_endpoint', `${fake.url}/oidc/authorize`);
    await setOption('oidc.token_endpoint', `${fake.url}/oidc/token`);
    await setOption('oidc.user_info_endpoint', `${fake.url}/oidc/userinfo`);
    await setOption('oidc.enabled', 'true');
    await setOption('WeChatServerAddress', fake.url);
    await setOption('WeChatAuthEnabled', 'true');
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it('registers on first GitHub login with the invite code from the state, and finds the same user next time', async () => {
    await gateway.register('inviter', 'inviter-pass');
    const inviter = await gateway.login('inviter', 'inviter-pass');
    const aff = (await call('GET', '/api/user/aff', { session: inviter })).json().data as string;

    const first = await callback('github', grant({ login: 'octocat', id: 583231, name: 'The Octocat' }), { state: await newState(aff) });
    expect(first.json()).toMatchObject({
      success: true,
      message: '',
      data: { username: expect.stringMatching(/^github_\d+$/), github_id: 'octocat', display_name: 'The Octocat', inviter_id: inviter.id, role: 1 },
    });
    const session = sessionOf(first);
    expect(await self(session)).toMatchObject({ id: session.id, github_id: 'octocat' });
    // Billing opens the account from identity.user.registered and credits the inviter.
    await waitFor(async () => (await self(inviter)).aff_count === 1, 10_000, 'inviter credited');

    // What identity sent: the code and the client secret to the token endpoint, the token to the user endpoint.
    const exchange = fake.requests.find((request) => request.path === '/login/oauth/access_token')!;
    expect(JSON.parse(exchange.body)).toEqual({ client_id: 'gh-client', client_secret: secrets.GitHubClientSecret, code: 'code-1' });
    expect(fake.requests.find((request) => request.path === '/user')!.headers).toMatchObject({
      authorization: expect.stringMatching(/^Bearer /),
      'user-agent': expect.any(String),
    });

    const second = await callback('github', grant({ login: 'octocat' }));
    expect(second.json()).toMatchObject({ success: true, data: { id: session.id, username: first.json().data.username } });
  });

  it('binds the account to a signed-in user, and refuses one bound to someone else', async () => {
    await gateway.register('ann', 'ann-password');
    const ann = await gateway.login('ann', 'ann-password');
    const bound = await callback('github', grant({ login: 'ann-gh' }), { session: ann });
    expect(bound.json()).toEqual({ success: true, message: 'bind' });
    // No new session: only the spent state's cookie is cleared.
    expect(bound.cookies).toEqual([expect.objectContaining({ name: 'oauth_state', value: '', maxAge: 0 })]);
    expect(await self(ann)).toMatchObject({ username: 'ann', github_id: 'ann-gh' });
    // Logging in with it now reaches ann.
    expect((await callback('github', grant({ login: 'ann-gh' }))).json()).toMatchObject({ success: true, data: { id: ann.id } });

    await gateway.register('bob', 'bob-password');
    const bob = await gateway.login('bob', 'bob-password');
    const taken = (await callback('github', grant({ login: 'ann-gh' }), { session: bob })).json();
    expect(taken).toEqual({ success: false, message: 'this GitHub account is already bound to another user' });
    expect((await self(bob)).github_id).toBe('');
  });

  it('refuses a missing, unknown, foreign or reused state before asking the provider', async () => {
    const before = fake.requests.length;
    const code = grant({ login: 'stateless' });
    const expected = { success: false, message: expect.stringMatching(/state is invalid or has expired/) };
    expect((await call('GET', `/api/oauth/github?code=${code}`)).json()).toEqual(expected);
    expect((await call('GET', `/api/oauth/github?code=${code}`, { headers: { 'accept-language': 'zh-CN' } })).json()).toEqual({
      success: false,
      message: '授权状态无效或已过期，请重新开始',
    });
    expect((await callback('github', code, { state: 'made-up-state' })).json()).toEqual(expected);
    // A real state, but issued to another browser (login CSRF), or sent without its cookie.
    expect((await callback('github', code, { state: await newState(), browserState: await newState() })).json()).toEqual(expected);
    expect((await callback('github', code, { state: await newState(), browserState: null })).json()).toEqual(expected);
    expect(fake.requests.length).toBe(before);

    const state = await newState();
    expect((await callback('github', code, { state })).json().success).toBe(true);
    expect((await callback('github', grant({ login: 'stateless' }), { state })).json()).toEqual(expected);
  });

  it('works only while the provider is switched on', async () => {
    await setOption('GitHubOAuthEnabled', 'false');
    expect((await callback('github', grant({ login: 'octocat' }))).json()).toEqual({
      success: false,
      message: 'the administrator has not enabled GitHub login',
    });
    expect((await call('GET', `/api/oauth/github?code=x&state=y`, { headers: { 'accept-language': 'zh-CN' } })).json()).toEqual({
      success: false,
      message: '管理员未启用 GitHub 登录',
    });
    await setOption('GitHubOAuthEnabled', 'true');
    await setOption('WeChatAuthEnabled', 'false');
    expect((await call('POST', '/api/oauth/wechat', { body: { code: 'x' } })).json()).toEqual({
      success: false,
      message: 'the administrator has not enabled WeChat login',
    });
    await setOption('WeChatAuthEnabled', 'true');
  });

  it('lets bound users in but registers nobody while registration is off (password registration does not matter)', async () => {
    await setOption('PasswordRegisterEnabled', 'false');
    expect((await callback('github', grant({ login: 'newcomer-1' }))).json()).toMatchObject({ success: true, data: { github_id: 'newcomer-1' } });
    await setOption('RegisterEnabled', 'false');
    expect((await callback('github', grant({ login: 'newcomer-2' }))).json()).toEqual({
      success: false,
      message: 'the administrator has turned off new-user registration',
    });
    expect((await callback('github', grant({ login: 'octocat' }))).json().success).toBe(true);
    await setOption('RegisterEnabled', 'true');
    await setOption('PasswordRegisterEnabled', 'true');
  });

  it('refuses deregistered and banned users', async () => {
    const leaver = sessionOf(await callback('github', grant({ login: 'leaver' })));
    expect((await call('DELETE', '/api/user/self', { session: leaver })).json().success).toBe(true);
    expect((await callback('github', grant({ login: 'leaver' }))).json()).toEqual({ success: false, message: 'the account has been deleted' });
    // Nor can anybody else take the identity over.
    await gateway.register('taker', 'taker-pass');
    const taker = await gateway.login('taker', 'taker-pass');
    expect((await callback('github', grant({ login: 'leaver' }), { session: taker })).json().message).toMatch(/already bound/);

    const banned = sessionOf(await callback('linuxdo', grant({ id: 9001, username: 'banned' })));
    expect((await call('POST', '/api/user/manage', { session: root, body: { id: banned.id, action: 'disable' } })).json().success).toBe(true);
    expect((await callback('linuxdo', grant({ id: 9001 }))).json()).toEqual({ success: false, message: 'the user has been banned' });
  });

  it('surfaces provider failures as messages, without secrets', async () => {
    expect((await callback('github', 'never-granted')).json()).toEqual({
      success: false,
      message: 'GitHub login failed: The code passed is incorrect or expired.',
    });
    // The provider's own words, in the caller's language around them.
    const state = await newState();
    const inChinese = await call('GET', `/api/oauth/github?code=never-granted&state=${state}`, {
      headers: { cookie: `oauth_state=${state}`, 'accept-language': 'zh-CN' },
    });
    expect(inChinese.json()).toEqual({ success: false, message: 'GitHub 登录失败：The code passed is incorrect or expired.' });
    expect((await callback('linuxdo', 'never-granted')).json()).toEqual({
      success: false,
      message: 'LinuxDO login failed: The code passed is incorrect or expired.',
    });

    // The provider echoes what it was sent, secret included: the message keeps its words but not the secret.
    for (const provider of ['github', 'linuxdo', 'oidc']) {
      const echoed = (await callback(provider, ECHO_CODE)).json();
      expect(echoed).toMatchObject({ success: false, message: expect.stringMatching(/login failed: cannot handle .*\*\*\*/) });
    }

    // Unreachable (a closed port), then blocked by the egress guard once private networks are off.
    const closed = await startFakeOAuthProvider();
    await closed.close();
    await setOption('oidc.token_endpoint', `${closed.url}/oidc/token`);
    expect((await callback('oidc', grant({ sub: 'x' }))).json()).toEqual({
      success: false,
      message: 'OIDC login failed: could not reach the provider (connection refused)',
    });
    const refusedState = await newState();
    const refusedInChinese = await call('GET', `/api/oauth/oidc?code=${grant({ sub: 'x' })}&state=${refusedState}`, {
      headers: { cookie: `oauth_state=${refusedState}`, 'accept-language': 'zh-CN' },
    });
    expect(refusedInChinese.json()).toEqual({ success: false, message: 'OIDC 登录失败：服务商拒绝连接' });
    await setOption('oidc.token_endpoint', `${fake.url}/oidc/token`);
    await setOption('AllowPrivateNetworkUpstreams', 'false');
    expect((await callback('github', grant({ login: 'octocat' }))).json()).toEqual({
      success: false,
      message: 'GitHub login failed: could not reach the provider (the address is not allowed)',
    });
    await setOption('AllowPrivateNetworkUpstreams', 'true');
  });

  it('logs in with LinuxDO: basic auth on the token endpoint, the numeric id bound', async () => {
    const login = (await callback('linuxdo', grant({ id: 4242, username: 'tux', name: 'Tux', trust_level: 2 }))).json();
    expect(login).toMatchObject({ success: true, data: { username: expect.stringMatching(/^linuxdo_\d+$/), linux_do_id: '4242', display_name: 'Tux' } });
    const exchange = fake.requests.filter((request) => request.path === '/oauth2/token').at(-1)!;
    expect(exchange.headers.authorization).toBe(`Basic ${Buffer.from(`ld-client:${secrets.LinuxDOClientSecret}`).toString('base64')}`);
    expect(Object.fromEntries(new URLSearchParams(exchange.body))).toEqual({
      grant_type: 'authorization_code',
      code: expect.any(String),
      redirect_uri: 'http://localhost:3000/oauth/linuxdo',
    });
  });

  it('logs in with OIDC through the discovery document, named after preferred_username while it is free', async () => {
    await setOption('oidc.well_known', `${fake.url}/.well-known/openid-configuration`);
    await setOption('oidc.token_endpoint', '');
    await setOption('oidc.user_info_endpoint', '');
    const first = (await callback('oidc', grant({ sub: 'sub-1', preferred_username: 'okta-ann', name: 'Ann O.' }))).json();
    expect(first).toMatchObject({ success: true, data: { username: 'okta-ann', display_name: 'Ann O.' } });
    expect(fake.requests.some((request) => request.path === '/.well-known/openid-configuration')).toBe(true);
    const exchange = fake.requests.filter((request) => request.path === '/oidc/token').at(-1)!;
    expect(new URLSearchParams(exchange.body).get('client_secret')).toBe(secrets['oidc.client_secret']);

    expect((await callback('oidc', grant({ sub: 'sub-1' }))).json()).toMatchObject({ success: true, data: { id: first.data.id } });
    // Another person with the same preferred name gets a numbered one.
    const second = (await callback('oidc', grant({ sub: 'sub-2', preferred_username: 'okta-ann' }))).json();
    expect(second).toMatchObject({ success: true, data: { username: expect.stringMatching(/^oidc_\d+$/) } });
  });

  it("never takes a look-alike of another user's name from the provider (issue 22.5), and normalises the one it takes", async () => {
    for (const [sub, suggested] of [
      ['sub-root-1', 'ROOT'],
      ['sub-root-2', 'r\u043eot'],
      ['sub-root-3', 'root\u200b'],
      ['sub-root-4', 'ＯＫＴＡ-ＡＮＮ'],
    ]) {
      const answer = (await callback('oidc', grant({ sub, preferred_username: suggested }))).json();
      expect({ suggested, answer }).toMatchObject({ suggested, answer: { success: true, data: { username: expect.stringMatching(/^oidc_\d+$/) } } });
    }
    const normalised = (await callback('oidc', grant({ sub: 'sub-width', preferred_username: 'ｏｋｔａ－ｂｏｂ' }))).json();
    expect(normalised).toMatchObject({ success: true, data: { username: 'okta-bob' } });
  });

  it('logs in and binds with WeChat through the WeChat server', async () => {
    const login = await call('POST', '/api/oauth/wechat', { body: { code: grant({ id: 'wx-openid-1' }) } });
    expect(login.json()).toMatchObject({ success: true, data: { username: expect.stringMatching(/^wechat_\d+$/), wechat_id: 'wx-openid-1' } });
    const asked = fake.requests.filter((request) => request.path === '/api/wechat/user').at(-1)!;
    expect(asked.headers.authorization).toBe(secrets.WeChatServerToken);

    expect((await call('POST', '/api/oauth/wechat', { body: { code: 'wrong' } })).json()).toEqual({
      success: false,
      message: 'WeChat login failed: the verification code is wrong or has expired',
    });
    expect((await call('POST', '/api/oauth/wechat/bind', { body: { code: 'x' } })).statusCode).toBe(401);

    await gateway.register('wendy', 'wendy-pass');
    const wendy = await gateway.login('wendy', 'wendy-pass');
    expect((await call('POST', '/api/oauth/wechat/bind', { session: wendy, body: { code: grant({ id: 'wx-openid-2' }) } })).json()).toEqual({
      success: true,
      message: '',
    });
    expect((await self(wendy)).wechat_id).toBe('wx-openid-2');
    expect((await call('POST', '/api/oauth/wechat/bind', { session: wendy, body: { code: grant({ id: 'wx-openid-1' }) } })).json().message).toBe(
      'this WeChat account is already bound to another user',
    );
  });

  it('declares who may call each route, and counts the callbacks against the critical rate limit', () => {
    const access = Object.fromEntries(
      declaredRoutes(gateway.app)
        .filter((route) => route.url.startsWith('/api/oauth/'))
        .map((route) => [route.url, route.access]),
    );
    expect(access).toMatchObject({
      '/api/oauth/state': 'public',
      '/api/oauth/github': 'public',
      '/api/oauth/linuxdo': 'public',
      '/api/oauth/oidc': 'public',
      '/api/oauth/wechat': 'public',
      '/api/oauth/wechat/bind': 'user',
    });
    for (const url of Object.keys(access)) expect(isCriticalPath(url)).toBe(true);
  });

  it('never answered with a secret', () => {
    expect(answers.length).toBeGreaterThan(50);
    for (const secret of Object.values(secrets)) expect(answers.filter((answer) => answer.includes(secret))).toEqual([]);
  });
});
