import net from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

/** A mail as the receiver took it, decoded enough to check what the notifier wrote. */
export interface ReceivedMail {
  /** RCPT TO of the envelope. */
  to: string[];
  from: string;
  subject: string;
  messageId: string;
  text: string;
  html: string;
  /** The account the client authenticated as, with the password it gave ('' without AUTH). */
  user: string;
  password: string;
  raw: string;
}

export interface SmtpReceiver {
  port: number;
  /** TCP connections the server took so far: a refused destination must leave it unchanged. */
  connections: number;
  /** Every mail accepted (answered 250) so far, in order. */
  mails: ReceivedMail[];
  /**
   * Mails matching this are read but never answered: the client waits (as on a slow server)
   * until its connection ends; such a mail is not accepted. `held` counts them.
   */
  holdWhen?: (mail: ReceivedMail) => boolean;
  held: ReceivedMail[];
  /** Recipients refused at RCPT TO with `550 5.1.1 <address>: mailbox unavailable` (as a server without that mailbox). */
  refuseRecipient?: (address: string) => boolean;
  /** Starts listening on `port` (again, after `stop`; nothing while it listens). */
  start(): Promise<void>;
  /** Stops listening and drops open connections: the SMTP server is down. */
  stop(): Promise<void>;
  waitForMails(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
}

/** A port nobody listens on right now (the receiver can start on it later). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A real SMTP server on loopback (smtp-server, the SMTP side of the nodemailer project): plain
 * SMTP with optional AUTH (PLAIN/LOGIN over the plain connection, so the test sees the password
 * the notifier sent), no STARTTLS. Not started until `start()`.
 */
export async function createSmtpReceiver(port?: number): Promise<SmtpReceiver> {
  const chosenPort = port ?? (await freePort());
  let server: SMTPServer | undefined;
  const receiver: SmtpReceiver = {
    port: chosenPort,
    connections: 0,
    mails: [],
    held: [],
    async start() {
      if (server) return;
      server = new SMTPServer({
        authOptional: true,
        allowInsecureAuth: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        closeTimeout: 50,
        onConnect(_session, callback) {
          receiver.connections++;
          callback();
        },
        onRcptTo(address, _session, callback) {
          if (receiver.refuseRecipient?.(address.address)) {
            const refusal = Object.assign(new Error(`5.1.1 <${address.address}>: mailbox unavailable`), { responseCode: 550 });
            callback(refusal);
            return;
          }
          callback();
        },
        onAuth(auth, session, callback) {
          callback(null, { user: JSON.stringify({ user: auth.username ?? '', password: auth.password ?? '' }) });
        },
        onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            const mail = parseMail(Buffer.concat(chunks).toString('utf8'), session);
            if (receiver.holdWhen?.(mail)) {
              receiver.held.push(mail);
              return; // never answered
            }
            receiver.mails.push(mail);
            callback(null);
          });
        },
      });
      server.on('error', () => undefined);
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(chosenPort, '127.0.0.1', () => resolve());
      });
    },
    async stop() {
      const running = server;
      server = undefined;
      if (running) await new Promise<void>((resolve) => running.close(() => resolve()));
    },
    async waitForMails(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.mails.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} mails, received ${receiver.mails.length} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return receiver.mails;
    },
  };
  return receiver;
}

/** Header name (lower case) -> value, folded lines joined. */
function parseHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function splitEntity(entity: string): { headers: Map<string, string>; body: string } {
  const match = /\r?\n\r?\n/.exec(entity);
  if (!match) return { headers: parseHeaders(entity), body: '' };
  return { headers: parseHeaders(entity.slice(0, match.index)), body: entity.slice(match.index + match[0].length) };
}

/** RFC 2047 encoded words (`=?UTF-8?B?...?=`, `=?UTF-8?Q?...?=`); whitespace between two of them is dropped. */
function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_word, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const input = text.replace(/=\r?\n/g, '');
  for (let index = 0; index < input.length; index++) {
    const hex = input.slice(index + 1, index + 3);
    if (input[index] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      index += 2;
    } else {
      bytes.push(...Buffer.from(input[index]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeBody(headers: Map<string, string>, body: string): string {
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
}

/** What nodemailer writes for text + html: multipart/alternative with one part each (or a single part). */
function parseMail(raw: string, session: SMTPServerSession): ReceivedMail {
  const { headers, body } = splitEntity(raw);
  let text = '';
  let html = '';
  const contentType = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  const parts = boundary
    ? body
        .split(`--${boundary}`)
        .slice(1)
        .filter((part) => !part.startsWith('--'))
        .map((part) => splitEntity(part.replace(/^\r?\n/, '')))
    : [{ headers, body }];
  for (const part of parts) {
    const type = (part.headers.get('content-type') ?? 'text/plain').toLowerCase();
    const decoded = decodeBody(part.headers, part.body).replace(/\r\n/g, '\n').replace(/\n$/, '');
    if (type.startsWith('text/html')) html = decoded;
    else if (type.startsWith('text/plain')) text = decoded;
  }
  const login = session.user ? (JSON.parse(String(session.user)) as { user: string; password: string }) : { user: '', password: '' };
  return {
    to: session.envelope.rcptTo.map((address) => address.address),
    from: decodeWords(headers.get('from') ?? ''),
    subject: decodeWords(headers.get('subject') ?? ''),
    messageId: headers.get('message-id') ?? '',
    text,
    html,
    user: login.user,
    password: login.password,
    raw,
  };
}
