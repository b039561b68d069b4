import { backends } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';

describe.each(backends)('drawing and async task lists (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let user: Session;

  beforeAll(async () => {
    gateway = await startGateway(backend);
    root = await gateway.login('root', ROOT_PASSWORD);
    await gateway.register('painter', 'painter-pass');
    user = await gateway.login('painter', 'painter-pass');
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each(['/api/mj/self', '/api/task/self'])('answers %s to users with a page of their tasks', async (path) => {
    const response = await gateway.call('GET', `${path}?p=2&page_size=20&start_timestamp=1&end_timestamp=2`, { session: user });
    expect(response.json()).toEqual({ success: true, message: '', data: { items: [], total: 0, page: 2, page_size: 20 } });
    expect((await gateway.call('GET', path)).statusCode).toBe(401);
  });

  it.each(['/api/mj/', '/api/task/'])('keeps %s (every user) for admins', async (path) => {
    expect((await gateway.call('GET', `${path}?p=0`, { session: user })).statusCode).toBe(403);
    expect((await gateway.call('GET', `${path}?p=0&channel_id=3`, { session: root })).json().data).toEqual({ items: [], total: 0, page: 1, page_size: 10 });
  });

  it('names the bad filter', async () => {
    const response = await gateway.call('GET', '/api/task/self?channel_id=abc', { session: user });
    expect(response.json()).toEqual({ success: false, message: expect.stringMatching(/^channel_id: /) });
  });
});
