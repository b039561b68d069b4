import type { ServiceMessaging } from '../messaging.js';

/**
 * What one service's NATS user may do, derived from its bus declaration (its events.ts) and from
 * the way the NATS adapter (nats-bus.ts) uses the server. Everything not listed is refused by the
 * server: a service cannot publish an event it does not declare (only the relay may publish
 * `relay.usage.recorded`), read a domain it does not consume, read another service's request
 * replies, or change, purge or delete a stream. docs/architecture.md section 4.1.
 */
export interface NatsPermissions {
  /** Subjects it may publish to: its events, its requests, the JetStream API calls and acks it needs. */
  publish: string[];
  /** Subjects it may subscribe to: its own inboxes and the requests it answers. */
  subscribe: string[];
}

/** A user of the server's authorization block. */
export interface NatsUser {
  user: string;
  /** Without permissions the user may do anything: the operator's user, never a service's. */
  permissions?: NatsPermissions;
}

/** Characters NATS subjects and stream names keep; the rest become `_`. */
const safeToken = (text: string): string => text.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * The prefix of every inbox a user's connection makes (request replies, JetStream acks of
 * publishes, pulled messages). Per user, so the server can let each subscribe to its own inboxes
 * only: a service never sees the replies another asked for (channel keys, token lookups).
 */
export function natsInboxPrefix(user: string): string {
  return `_INBOX_${safeToken(user)}`;
}

/** The environment variable the NATS server config reads a user's password from (`$RELAY_NATS_PASSWORD`). */
export function natsPasswordVariable(user: string): string {
  return `${safeToken(user).toUpperCase()}_NATS_PASSWORD`;
}

/** The stream of a domain, named as nats-bus.ts names it (the permissions test on a real server holds the two together). */
function streamName(namespace: string, domain: string): string {
  return (namespace ? `${namespace}_${domain}` : domain).toUpperCase().replace(/[^A-Z0-9_-]/g, '_');
}

const domainOf = (subject: string): string => subject.split('.')[0]!;
const unique = (subjects: string[]): string[] => [...new Set(subjects)];

/**
 * The permissions of a service's user. Publishing: its declared events, `rpc.<subject>` for the
 * requests it asks, and of the JetStream API only what the adapter calls, per stream of a domain
 * it uses: stream info and create (streams are made on first use by whoever comes first), and for
 * the domains it reads, consumers filtered on the subjects it consumes, their info, deletion,
 * pulls and acks. Subscribing: its inboxes and `rpc.<subject>` for the requests it answers. Its
 * replies go out by `allow_responses`, to the one inbox that asked.
 */
export function natsPermissions(messaging: ServiceMessaging, options: { user: string; namespace?: string }): NatsPermissions {
  const namespace = options.namespace ?? '';
  const qualify = (subject: string): string => (namespace ? `${namespace}.${subject}` : subject);
  // The notifier forwards every event of a domain through one wildcard consumer per domain (webhooks/delivery.ts).
  const filters = unique([...messaging.consumes, ...(messaging.forwards ?? []).map((subject) => `${domainOf(subject)}.>`)]);
  const readDomains = unique(filters.map(domainOf));
  const domains = unique([...messaging.publishes.map(domainOf), ...readDomains]);
  const stream = (domain: string) => streamName(namespace, domain);

  const publish = [
    ...messaging.publishes.map(qualify),
    ...messaging.asks.map((subject) => qualify(`rpc.${subject}`)),
    // Checked once per connection by the client's JetStream manager.
    '$JS.API.INFO',
    ...domains.flatMap((domain) => [`$JS.API.STREAM.INFO.${stream(domain)}`, `$JS.API.STREAM.CREATE.${stream(domain)}`]),
    // The filter is part of the create subject (servers 2.9 and later), so a consumer can only be made on what the service consumes.
    ...filters.map((filter) => `$JS.API.CONSUMER.CREATE.${stream(domainOf(filter))}.*.${qualify(filter)}`),
    ...readDomains.flatMap((domain) => [
      `$JS.API.CONSUMER.INFO.${stream(domain)}.*`,
      `$JS.API.CONSUMER.DELETE.${stream(domain)}.*`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream(domain)}.*`,
      `$JS.ACK.${stream(domain)}.>`,
    ]),
  ];
  const subscribe = [`${natsInboxPrefix(options.user)}.>`, ...messaging.answers.map((subject) => qualify(`rpc.${subject}`))];
  return { publish: unique(publish), subscribe: unique(subscribe) };
}

const list = (subjects: string[], indent: string): string => subjects.map((subject) => `${indent}${JSON.stringify(subject)}`).join('\n');

/**
 * The `authorization` block of a NATS server config for these users. Passwords are not in it:
 * each is `$<USER>_NATS_PASSWORD`, which the server reads from its environment (a Secret), so the
 * file can be committed and mounted as it is.
 */
export function renderNatsAuthorization(users: NatsUser[]): string {
  const entries = users.map(({ user, permissions }) => {
    const lines = ['    {', `      user: ${JSON.stringify(user)}`, `      password: $${natsPasswordVariable(user)}`];
    if (permissions) {
      lines.push(
        '      permissions: {',
        '        publish: {',
        '          allow: [',
        list(permissions.publish, '            '),
        '          ]',
        '        }',
        '        subscribe: {',
        '          allow: [',
        list(permissions.subscribe, '            '),
        '          ]',
        '        }',
        '        allow_responses: true',
        '      }',
      );
    }
    lines.push('    }');
    return lines.join('\n');
  });
  return ['authorization {', '  users: [', ...entries, '  ]', '}', ''].join('\n');
}
