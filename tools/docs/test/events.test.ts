import fs from 'node:fs';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { eventExamples, eventSchemas, type EventSubject } from '@aigw/contracts';
import { signedHeaders } from '../../../services/notifier/src/domain/webhook-signature';
import { documentPath, eventDocComments, renderEventCatalogue } from '../events.mjs';

const subjects = Object.keys(eventSchemas) as EventSubject[];

describe('the event catalogue (docs/events.md)', () => {
  it('is current: regenerate it with `npm run docs:events` after changing the event map, its comments or examples', () => {
    const committed = fs.existsSync(documentPath) ? fs.readFileSync(documentPath, 'utf8') : '';
    // A plain equality keeps the failure short; the hint says what to do.
    expect({ stale: committed !== renderEventCatalogue(), fix: 'npm run docs:events' }).toEqual({ stale: false, fix: 'npm run docs:events' });
  });

  it('has an example for every event, valid against its schema', () => {
    expect(Object.keys(eventExamples).sort()).toEqual([...subjects].sort());
    for (const subject of subjects) {
      const parsed = eventSchemas[subject].safeParse(eventExamples[subject]);
      expect({ subject, issues: parsed.success ? [] : parsed.error.issues }).toEqual({ subject, issues: [] });
    }
  });

  it('has a doc comment saying who publishes every event', () => {
    const comments = eventDocComments();
    expect(Object.keys(comments).sort()).toEqual([...subjects].sort());
    for (const subject of subjects) expect({ subject, comment: comments[subject] }).toEqual({ subject, comment: expect.stringMatching(/^Published by /) });
  });

  it('documents a verification snippet that accepts what the notifier signs, and nothing else', () => {
    const document = renderEventCatalogue();
    const snippet = /```js\n(import \{ createHmac, timingSafeEqual \}[\s\S]*?)```/.exec(document)?.[1];
    expect(snippet).toBeDefined();
    const body = snippet!.replace(/^import .*\n/m, '').replace(/^export /m, '');
    type Verify = (secret: string, headers: Record<string, string>, rawBody: string, toleranceSeconds?: number) => boolean;
    // The docs' snippet itself, run as an integrator would paste it.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const verifyWebhook = new Function('createHmac', 'timingSafeEqual', `${body}\nreturn verifyWebhook;`)(createHmac, timingSafeEqual) as Verify;

    const secret = 'whsec_catalogue-test-secret-0123456789abcdef';
    const message = {
      id: 'evt-1',
      subject: 'relay.usage.recorded',
      body: JSON.stringify({ id: 'evt-1', subject: 'relay.usage.recorded', time: new Date().toISOString(), data: eventExamples['relay.usage.recorded'] }),
    };
    const lowerCase = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    const headers = lowerCase(signedHeaders(message, secret));
    expect(verifyWebhook(secret, headers, message.body)).toBe(true);
    expect(verifyWebhook(`${secret}-other`, headers, message.body)).toBe(false);
    expect(verifyWebhook(secret, headers, message.body.replace('"quota":1134', '"quota":1'))).toBe(false);
    const old = lowerCase(signedHeaders(message, secret, Date.now() - 3_600_000));
    expect(verifyWebhook(secret, old, message.body)).toBe(false);
  });
});
