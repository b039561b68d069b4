// The committed NATS authorization (deploy/nats/authorization.conf and its kustomize copy) is the
// services' bus declarations rendered, and the deployments hand every service its own user.
// `npm run nats:authorization` (UPDATE_NATS_AUTHORIZATION=1) rewrites the files instead of failing.
import fs from 'node:fs';
import path from 'node:path';
import { subjectMatches } from '@aigw/contracts';
import { natsPasswordVariable } from '@aigw/platform';
import { authorizationFiles, natsUsers, operatorUser, renderAuthorizationFile, serviceUsers } from './support/nats-authorization';

const repositoryRoot = path.resolve(__dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(repositoryRoot, file), 'utf8');

/** Whether a NATS permission subject (wildcards allowed) covers a literal subject. */
const allows = (pattern: string, subject: string) => subjectMatches(pattern, subject);

describe('the NATS authorization of the distributed topology', () => {
  it.each(authorizationFiles.map((file) => [path.relative(repositoryRoot, file), file]))(
    '%s is current: regenerate with `npm run nats:authorization` after changing a service events.ts',
    (_name, file) => {
      const rendered = renderAuthorizationFile();
      if (process.env.UPDATE_NATS_AUTHORIZATION === '1') fs.writeFileSync(file, rendered);
      const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      expect({ stale: committed !== rendered, fix: 'npm run nats:authorization' }).toEqual({ stale: false, fix: 'npm run nats:authorization' });
    },
  );

  it('lets only the relay publish usage records and started requests', () => {
    for (const subject of ['relay.usage.recorded', 'relay.request.started']) {
      const publishers = natsUsers()
        .filter(({ user, permissions }) => user !== operatorUser && permissions?.publish.some((pattern) => allows(pattern, subject)))
        .map(({ user }) => user);
      expect({ subject, publishers }).toEqual({ subject, publishers: ['relay'] });
    }
  });

  it('never lets a service change, purge or delete a stream, or read inboxes but its own', () => {
    for (const { user, permissions } of natsUsers().filter(({ user }) => user !== operatorUser)) {
      const publish = permissions!.publish;
      for (const call of ['$JS.API.STREAM.UPDATE.RELAY', '$JS.API.STREAM.DELETE.RELAY', '$JS.API.STREAM.PURGE.RELAY', '$JS.API.STREAM.MSG.DELETE.RELAY']) {
        expect({ user, call, allowed: publish.some((pattern) => allows(pattern, call)) }).toEqual({ user, call, allowed: false });
      }
      expect({ user, inboxes: permissions!.subscribe.filter((pattern) => pattern.startsWith('_INBOX')) }).toEqual({ user, inboxes: [`_INBOX_${user}.>`] });
    }
  });

  it('gives every service its own user and password in docker-compose.yml', () => {
    const compose = read('docker-compose.yml');
    for (const user of [...serviceUsers, operatorUser]) expect(compose).toContain(`\${${natsPasswordVariable(user)}:?`);
    for (const user of serviceUsers) {
      // The service's environment block: from its key to the next top-level service.
      const block = new RegExp(`\\n  ${user}:\\n[\\s\\S]*?(?=\\n  [a-z]+:\\n|\\nvolumes:)`).exec(compose)?.[0] ?? '';
      expect({ user, block }).toEqual({
        user,
        block: expect.stringContaining(`NATS_USER: ${user}\n      NATS_PASSWORD: \${${natsPasswordVariable(user)}:?`),
      });
    }
  });

  it('gives every Deployment its own user and its password from the Secret, and the example Secret lists every password', () => {
    for (const user of serviceUsers) {
      const manifest = read(`deploy/k8s/base/${user}.yaml`);
      expect({ user, manifest }).toEqual({
        user,
        manifest: expect.stringContaining(
          `- name: NATS_USER\n              value: ${user}\n            - name: NATS_PASSWORD\n              valueFrom:\n                secretKeyRef:\n                  name: aigw-secrets\n                  key: ${natsPasswordVariable(user)}`,
        ),
      });
    }
    const secret = read('deploy/k8s/base/secret.example.yaml');
    for (const user of [...serviceUsers, operatorUser]) expect(secret).toContain(`\n  ${natsPasswordVariable(user)}: `);
  });
});
