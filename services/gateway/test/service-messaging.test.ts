// Each service declares in its events.ts what it says on the bus (issue 20.3): the events it
// publishes and consumes, the requests it answers and makes. This holds the code to those
// declarations, by reading every service's sources, and the declarations to one another: the
// services composed by the gateway publish every event of the contracts and answer every request.
import fs from 'node:fs';
import path from 'node:path';
import { eventSchemas, requestSchemas, webhookSubjects } from '@aigw/contracts';
import type { ServiceMessaging } from '@aigw/platform';
import { billingMessaging } from '../../billing/src/events';
import { channelsMessaging } from '../../channels/src/events';
import { identityMessaging } from '../../identity/src/events';
import { notifierMessaging } from '../../notifier/src/events';
import { relayMessaging } from '../../relay/src/events';
import { gatewayMessaging } from '../src/events';

const servicesRoot = path.resolve(__dirname, '../..');

const declarations: Record<string, ServiceMessaging> = {
  identity: identityMessaging,
  billing: billingMessaging,
  channels: channelsMessaging,
  relay: relayMessaging,
  notifier: notifierMessaging,
  // In front of separate services; all-in-one it runs the five above.
  gateway: gatewayMessaging,
};

/**
 * Consumed but published by no service yet: channels re-enables a channel on
 * `relay.channel.succeeded`, which the relay does not publish (its channel tests answer channels
 * by request instead).
 */
const unpublished = ['relay.channel.succeeded'];

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

interface Use {
  file: string;
  subject: string;
}

/** The subjects a service's code names literally, by the platform function it passes them to. */
function usesOf(service: string): Record<'publishEvent' | 'audit' | 'deadLetters' | 'onEvent' | 'replyTyped' | 'requestTyped', Use[]> {
  const uses = {
    publishEvent: [] as Use[],
    audit: [] as Use[],
    deadLetters: [] as Use[],
    onEvent: [] as Use[],
    replyTyped: [] as Use[],
    requestTyped: [] as Use[],
  };
  const root = path.join(servicesRoot, service, 'src');
  for (const full of sourceFiles(root)) {
    const file = path.relative(root, full);
    const text = fs.readFileSync(full, 'utf8');
    for (const match of text.matchAll(/\b(publishEvent|onEvent|replyTyped|requestTyped)\(\s*[\w.]+,\s*'([^']+)'/g)) {
      uses[match[1] as 'publishEvent'].push({ file, subject: match[2]! });
    }
    // Audit records go through platform's recordAudit/publishAudit, on `<service>.audit.recorded`.
    for (const match of text.matchAll(/\b(?:recordAudit\(\s*\w+,|publishAudit\()\s*[\w.]+,\s*'(\w+)'/g)) {
      uses.audit.push({ file, subject: `${match[1]}.audit.recorded` });
    }
    // Dead letters are announced by platform's keepDeadLetters, on `<service>.dead_letter.recorded`.
    for (const match of text.matchAll(/\bkeepDeadLetters\(\s*[\w.]+,\s*'(\w+)'/g)) {
      uses.deadLetters.push({ file, subject: `${match[1]}.dead_letter.recorded` });
    }
  }
  return uses;
}

const subjects = (uses: Use[]) => [...new Set(uses.map((use) => use.subject))].sort();
const sorted = (list: readonly string[]) => [...list].sort();

describe("services' bus messaging: declared once in events.ts, held to the code", () => {
  describe.each(Object.entries(declarations))('%s', (service, declared) => {
    const uses = usesOf(service);

    it('publishes events only through its events.ts', () => {
      expect(uses.publishEvent.filter((use) => use.file !== 'events.ts')).toEqual([]);
    });

    it('publishes exactly the events it declares', () => {
      expect(subjects([...uses.publishEvent, ...uses.audit, ...uses.deadLetters])).toEqual(sorted(declared.publishes));
    });

    it('consumes only events it declares, and answers exactly the requests it declares', () => {
      expect(subjects(uses.onEvent).filter((subject) => !declared.consumes.includes(subject as never))).toEqual([]);
      expect(subjects(uses.replyTyped)).toEqual(sorted(declared.answers));
    });

    it('asks only the requests it declares', () => {
      expect(subjects(uses.requestTyped).filter((subject) => !declared.asks.includes(subject as never))).toEqual([]);
    });
  });

  const all = Object.values(declarations);

  it('every event of the contracts has one publishing service, and each consumed one a publisher', () => {
    for (const subject of Object.keys(eventSchemas)) {
      const publishers = all.filter((declared) => declared.publishes.includes(subject as never)).length;
      expect({ subject, publishers }).toEqual({ subject, publishers: unpublished.includes(subject) ? 0 : 1 });
    }
  });

  it('every request of the contracts is answered by one service', () => {
    for (const subject of Object.keys(requestSchemas)) {
      expect({ subject, answerers: all.filter((declared) => declared.answers.includes(subject as never)).length }).toEqual({ subject, answerers: 1 });
    }
  });

  it('the notifier forwards every event integrators may receive', () => {
    expect(sorted(notifierMessaging.forwards)).toEqual(sorted(webhookSubjects));
  });
});
