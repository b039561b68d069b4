// Generates docs/events.md, the event catalogue for integrators, from the contracts: the event
// map (packages/contracts/src/events.ts: subjects, zod payload schemas and the doc comment of
// each, which says who publishes it and when), the examples (src/event-catalogue.ts) and the
// webhook constants (src/webhooks.ts).
//
//   npm run docs:events           rewrite docs/events.md (builds the contracts first)
//   node tools/docs/events.mjs --check   exit 1 when docs/events.md is stale
//
// tools/docs/test/events.test.ts fails when the committed document differs from what this renders.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { z } from 'zod';
import { eventExamples, eventSchemas, WEBHOOK_PING_SUBJECT, webhookHeaders, webhookSubjects } from '@aigw/contracts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const eventsSource = path.join(root, 'packages/contracts/src/events.ts');
export const documentPath = path.join(root, 'docs/events.md');

/**
 * The doc comment above each key of `eventSchemas` in events.ts, as one paragraph per subject.
 * Read with the TypeScript parser, so the comments stay the single source of these texts.
 */
export function eventDocComments(source = fs.readFileSync(eventsSource, 'utf8')) {
  const file = ts.createSourceFile('events.ts', source, ts.ScriptTarget.ES2022, true);
  const comments = {};
  const visit = (node) => {
    if (ts.isVariableDeclaration(node) && node.name.getText(file) === 'eventSchemas' && node.initializer) {
      let literal = node.initializer;
      while (ts.isAsExpression(literal) || ts.isSatisfiesExpression(literal) || ts.isParenthesizedExpression(literal)) literal = literal.expression;
      for (const property of literal.properties) {
        const subject = property.name.getText(file).replace(/^['"]|['"]$/g, '');
        const ranges = ts.getLeadingCommentRanges(source, property.getFullStart()) ?? [];
        const docs = ranges.map((range) => source.slice(range.pos, range.end)).filter((text) => text.startsWith('/**'));
        comments[subject] =
          docs.length === 0
            ? ''
            : docs
                .at(-1)
                .replace(/^\/\*\*|\*\/$/g, '')
                .split('\n')
                .map((line) => line.replace(/^\s*\*\s?/, '').trim())
                .filter(Boolean)
                .join(' ');
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return comments;
}

/** The payload schema as JSON Schema, without `additionalProperties: false`: fields may be added later. */
function jsonSchemaOf(schema) {
  return z.toJSONSchema(schema, {
    io: 'output',
    override: (context) => {
      if (context.jsonSchema.additionalProperties === false) delete context.jsonSchema.additionalProperties;
    },
  });
}

const json = (value) => JSON.stringify(value, null, 2);
const fence = (language, text) => `\`\`\`${language}\n${text}\n\`\`\``;
const streamOf = (subject) => subject.split('.')[0].toUpperCase();
const anchorOf = (subject) => subject.replace(/[^a-z0-9]+/g, '');

const natsExample = `import { AckPolicy, DeliverPolicy, connect } from 'nats'; // nats 2.x

const namespace = process.env.NAMESPACE ?? '';            // the gateway's NAMESPACE ('' by default)
const qualify = (subject) => (namespace ? \`\${namespace}.\${subject}\` : subject);
const stream = (namespace ? \`\${namespace}_RELAY\` : 'RELAY').toUpperCase();

const nc = await connect({ servers: 'nats://nats:4222' });
const jsm = await nc.jetstreamManager();
// A durable consumer survives restarts and resumes where it stopped; replicas of your service
// using the same durable name share the events. Pick a name of your own.
await jsm.consumers.add(stream, {
  durable_name: 'acme-usage-export',
  filter_subject: qualify('relay.usage.recorded'),
  ack_policy: AckPolicy.Explicit,
  deliver_policy: DeliverPolicy.All, // or DeliverPolicy.New to skip what the stream already holds
  max_deliver: 10,
});

const consumer = await nc.jetstream().consumers.get(stream, 'acme-usage-export');
const messages = await consumer.consume();
for await (const message of messages) {
  const event = message.json(); // { id, subject, time, data }
  try {
    await handle(event);          // make it idempotent: key your writes by event.id
    message.ack();
  } catch {
    message.nak(5_000);           // redelivered after 5 s, up to max_deliver times
  }
}`;

const verifyExample = `import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * True when a webhook call is genuine and fresh. \`rawBody\` must be the exact bytes received
 * (verify before parsing JSON); \`headers\` are the request headers (lower-case names, as Node gives them).
 */
export function verifyWebhook(secret, headers, rawBody, toleranceSeconds = 300) {
  const timestamp = String(headers['${webhookHeaders.timestamp.toLowerCase()}'] ?? '');
  const signature = String(headers['${webhookHeaders.signature.toLowerCase()}'] ?? '');
  if (!/^\\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = 'sha256=' + createHmac('sha256', secret).update(\`\${timestamp}.\${rawBody}\`).digest('hex');
  return signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
}

// Express: app.post('/aigw', express.raw({ type: 'application/json' }), (req, res) => {
//   if (!verifyWebhook(process.env.AIGW_WEBHOOK_SECRET, req.headers, req.body.toString('utf8'))) return res.sendStatus(401);
//   const event = JSON.parse(req.body);   // { id, subject, time, data }; drop an id you already handled
//   res.sendStatus(204);                  // answer 2xx quickly; anything else is retried
// });`;

/** A markdown table. */
function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

/** The whole document. */
export function renderEventCatalogue() {
  const docs = eventDocComments();
  const subjects = Object.keys(eventSchemas);
  const domains = [...new Set(subjects.map((subject) => subject.split('.')[0]))];
  const excluded = subjects.filter((subject) => !webhookSubjects.includes(subject));
  const firstSentence = (text) => /^(.*?\.)(\s|$)/.exec(text)?.[1] ?? text;
  const blocks = [
    '# Event catalogue',
    '<!-- Generated by tools/docs/events.mjs from packages/contracts (events.ts, event-catalogue.ts, webhooks.ts). Do not edit: run `npm run docs:events`. -->',
    'Every service announces what it changed as an event on the bus (NATS JetStream in the distributed topology): ' +
      'subjects are `domain.noun.past-tense-verb`, and an event is published after the change it reports is committed. ' +
      'Integrators can read them two ways: **subscribe on NATS** directly (below), or let root register a **webhook** ' +
      '(console: Settings → Webhooks) that receives matching events as signed HTTP POSTs.',
    'Delivery is at least once on both paths: the same event may arrive twice (after a redelivery or a retry), ' +
      'always with the same `id`, so key what you do by it. Events of one subject arrive in publication order on NATS; ' +
      'webhook calls carry no ordering guarantee. New fields may be added to a payload; ignore the ones you do not know.',

    '## Events',
    table(
      ['subject', 'published', 'webhook'],
      subjects.map((subject) => [
        `[\`${subject}\`](#${anchorOf(subject)})`,
        firstSentence(docs[subject] ?? ''),
        webhookSubjects.includes(subject) ? 'yes' : 'no (carries secrets)',
      ]),
    ),

    '## The envelope',
    'On NATS each event is one JetStream message whose body is this JSON, with the `Nats-Msg-Id` header set to `id` ' +
      '(JetStream drops a republished duplicate within its two-minute window). A webhook call has the same body.',
    fence('json', json({ id: 'req_01JD3Z8Q4M2X7T', subject: 'relay.usage.recorded', time: '2024-11-26T05:46:40.000Z', data: { '…': 'the payload below' } })),
    [
      '- `id`: unique per logical event (for `relay.usage.recorded` the request id); a random UUID unless the publisher names it.',
      '- `subject`: the subject without the namespace prefix.',
      '- `time`: ISO-8601 time of publication.',
      "- `data`: the payload, valid against the subject's schema below.",
    ].join('\n'),

    '## Subscribing on NATS',
    'Each domain (the first token of the subject) has one stream, created by the first service that publishes or subscribes to it:',
    table(
      ['domain', 'stream', 'subjects'],
      domains.map((domain) => [domain, `\`${streamOf(domain)}\``, `\`${domain}.>\``]),
    ),
    'With a `NAMESPACE` set (several deployments sharing one NATS), the stream is `<NAMESPACE>_<DOMAIN>` upper-cased ' +
      '(`PROD_RELAY`) and every subject is prefixed with `<namespace>.` (`prod.relay.usage.recorded`). ' +
      "Streams keep events for 7 days. Only read: publishing into these streams would be taken for the services' own events.",
    fence('js', natsExample),

    '## Webhooks',
    'Root registers an endpoint with a URL and a subject filter: NATS-style patterns such as `relay.usage.recorded`, `billing.>` or `*.channel.*` ' +
      '(`*` one token, a final `>` the rest); every pattern must match at least one event of this catalogue. The URL must pass the egress guard ' +
      '(http or https, no private, loopback or metadata address unless root allows private networks), when saved and on every call.',
    'Each matching event is POSTed as the envelope above (`Content-Type: application/json`) with these headers:',
    table(
      ['header', 'value'],
      [
        [`\`${webhookHeaders.id}\``, 'the event id, the same on every retry: drop duplicates by it'],
        [`\`${webhookHeaders.subject}\``, 'the subject'],
        [`\`${webhookHeaders.timestamp}\``, 'unix seconds when this attempt was signed'],
        [`\`${webhookHeaders.signature}\``, "`sha256=` + lower-case hex of HMAC-SHA256, keyed with the endpoint's secret, over `<timestamp>.<raw body>`"],
      ],
    ),
    'The secret is shown once, when the endpoint is created (or its secret rotated). Verify the signature over the raw bytes ' +
      'before parsing, compare in constant time, and refuse timestamps far from now (replays):',
    fence('js', verifyExample),
    'Answer with a 2xx status within 10 seconds (the default of `WEBHOOK_TIMEOUT_MS`). Any other status, a redirect (never followed), a timeout or a ' +
      'network error is retried with exponential backoff (by default, `WEBHOOK_ATTEMPTS` and `WEBHOOK_BACKOFF_MS`: 6 calls over about 15 minutes, waiting 30 s, 1, 2, 4 and 8 min); ' +
      'then the delivery is marked failed, root sees it in the console, and `notifier.delivery.failed` is published.',
    `The console's **Test** button sends a signed ping with subject \`${WEBHOOK_PING_SUBJECT}\` and \`data: {"webhook_id": <id>}\`.` +
      (excluded.length ? ` Never sent to webhooks: ${excluded.map((subject) => `\`${subject}\``).join(', ')} (one-time codes and password-reset links).` : ''),

    '## Payloads',
    ...subjects.flatMap((subject) => [
      `### ${subject}`,
      docs[subject] || '(no description)',
      `Stream \`${streamOf(subject)}\` · webhook: ${webhookSubjects.includes(subject) ? 'yes' : 'no'}`,
      'Example:',
      fence('json', json(eventSchemas[subject].parse(eventExamples[subject]))),
      ['<details><summary>JSON Schema</summary>', '', fence('json', json(jsonSchemaOf(eventSchemas[subject]))), '', '</details>'].join('\n'),
    ]),
  ];
  return `${blocks.join('\n\n')}\n`;
}

function isMain() {
  if (!process.argv[1]) return false;
  try {
    return import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  const rendered = renderEventCatalogue();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(documentPath) ? fs.readFileSync(documentPath, 'utf8') : '';
    if (current !== rendered) {
      process.stderr.write('docs/events.md is stale: run `npm run docs:events`\n');
      process.exit(1);
    }
  } else {
    fs.writeFileSync(documentPath, rendered);
    process.stdout.write(`wrote ${path.relative(process.cwd(), documentPath)}\n`);
  }
}
