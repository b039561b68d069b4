import crypto from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createSilentLogger, openDatabase } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { OptionEntity } from '../../identity/src/entities/option.entity';
import { SessionEntity } from '../../identity/src/entities/session.entity';
import { UserEntity } from '../../identity/src/entities/user.entity';
import { identityMigrations } from '../../identity/src/migrations/index';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from './support/gateway';

/**
 * Issue 22.6: a password change ends every other way in, the system access token included, on
 * each path that changes a password: one's own change, an admin's edit and a reset link.
 */
describe.each(backends)('a password change revokes the access token (%s)', (backend) => {
  let gateway: TestGateway;
  let db: DataSource;
  let root: Session;
  let pat: Session;

  beforeAll(async () => {
    gateway = await startGateway(backend);
    db = await openDatabase({
      url: gateway.env.databaseUrl,
      dataDir: gateway.env.dataDir,
      schema: gateway.env.schema('identity'),
      entities: [UserEntity, SessionEntity, OptionEntity],
      migrations: identityMigrations,
      logger: createSilentLogger(),
    });
    root = await gateway.login('root', ROOT_PASSWORD);
    expect((await gateway.register('pat', 'pat-password-1')).json().success).toBe(true);
    pat = await gateway.login('pat', 'pat-password-1');
  });
  afterAll(async () => {
    await db?.destroy();
    await gateway?.close();
  });

  /** A system access token of the user, stored as the token route stores it (its sha256). */
  const newAccessToken = async (session: Session): Promise<string> => {
    const token = crypto.randomBytes(16).toString('hex');
    await db.getRepository(UserEntity).update({ id: session.id }, { access_token_hash: crypto.createHash('sha256').update(token).digest('hex') });
    return token;
  };
  const withToken = (token: string) => gateway.call('GET', '/api/user/self', { headers: { authorization: token, 'new-api-user': String(pat.id) } });
  const expectRevoked = (token: string, what: string) => waitFor(async () => (await withToken(token)).statusCode === 401, 5_000, what);

  it("on one's own change, keeping only the session that made it", async () => {
    const token = await newAccessToken(pat);
    expect((await withToken(token)).json()).toMatchObject({ success: true, data: { username: 'pat' } });
    const changed = await gateway.call('PUT', '/api/user/self', { session: pat, body: { password: 'pat-password-2', original_password: 'pat-password-1' } });
    expect(changed.json()).toEqual({ success: true, message: '' });
    await expectRevoked(token, 'access token revoked by the change');
    expect((await gateway.call('GET', '/api/user/self', { session: pat })).statusCode).toBe(200);
    // A token made after the change works.
    expect((await withToken(await newAccessToken(pat))).statusCode).toBe(200);
  });

  it("on an admin's edit of the password", async () => {
    const token = await newAccessToken(pat);
    expect((await withToken(token)).statusCode).toBe(200);
    expect((await gateway.call('PUT', '/api/user/', { session: root, body: { id: pat.id, password: 'pat-password-3' } })).json()).toEqual({
      success: true,
      message: '',
    });
    await expectRevoked(token, 'access token revoked by the admin edit');
    pat = await gateway.login('pat', 'pat-password-3');
  });

  it('on a reset through the emailed link', async () => {
    expect((await gateway.call('PUT', '/api/user/', { session: root, body: { id: pat.id, email: 'pat@example.com' } })).json().success).toBe(true);
    const token = await newAccessToken(pat);
    expect((await withToken(token)).statusCode).toBe(200);
    // The link's token, as the reset mail would carry it (identity keeps it in kv).
    await gateway.env.infra.kv.set('identity:reset:pat@example.com', 'f'.repeat(32), { ttlMs: 60_000 });
    const reset = (await gateway.call('POST', '/api/user/reset', { body: { email: 'pat@example.com', token: 'f'.repeat(32) } })).json();
    expect(reset).toMatchObject({ success: true, data: expect.stringMatching(/^[A-Za-z0-9]{12}$/) });
    await expectRevoked(token, 'access token revoked by the reset');
    expect((await gateway.login('pat', reset.data)).id).toBe(pat.id);
  });
});
