import { isIP } from 'node:net';
import nodemailer, { type Transporter } from 'nodemailer';
import { msg } from '@aigw/contracts';
import { resolveEgressHost, type OptionsMirror, type ResolvedAddress } from '@aigw/platform';

/** The SMTP options (root's settings) a transporter is built from. */
export interface SmtpSettings {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (SMTPSSLEnabled, or port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  account: string;
  token: string;
  /** The sender address: SMTPFrom, or the account when it is empty. */
  from: string;
  /** The sender's display name (SystemName). */
  fromName: string;
}

/** How long the mailer waits for the SMTP server, in ms. */
export interface SmtpTimeouts {
  /** TCP (and TLS) connection. */
  connectionMs: number;
  /** The server's greeting after connecting. */
  greetingMs: number;
  /** Silence on an open connection, at any step. */
  socketMs: number;
}

export const defaultSmtpTimeouts: SmtpTimeouts = { connectionMs: 10_000, greetingMs: 10_000, socketMs: 30_000 };

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Fixed per delivery: a retry of a mail the server did take carries the same Message-ID. */
  messageId: string;
}

export interface Mailer {
  /** Sends over SMTP; rejects when SMTP is not configured or the server does not take the mail. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** Raised before any connection when root has not configured SMTP. */
export class SmtpNotConfiguredError extends Error {
  constructor(missing: string) {
    super(`SMTP is not configured: ${missing} is empty (settings: SMTP)`);
    this.name = 'SmtpNotConfiguredError';
  }
}

/** The current SMTP settings, or which option is missing. */
export function smtpSettings(options: OptionsMirror): SmtpSettings | { missing: string } {
  const host = options.get('SMTPServer').trim();
  const account = options.get('SMTPAccount').trim();
  const from = options.get('SMTPFrom').trim() || account;
  if (!host) return { missing: 'SMTPServer' };
  if (!from) return { missing: 'SMTPFrom' };
  const port = options.get('SMTPPort');
  return {
    host,
    port,
    secure: options.get('SMTPSSLEnabled') || port === 465,
    account,
    token: options.get('SMTPToken'),
    from,
    fromName: options.get('SystemName'),
  };
}

/**
 * nodemailer's SMTP transport options for the settings: one connection per mail, bounded waits.
 * With `address` (the one the egress policy checked) the socket goes to that IP and TLS still
 * presents and verifies the configured name (SNI, certificate), so nodemailer never resolves the
 * name again.
 */
export function transportOptions(settings: SmtpSettings, timeouts: SmtpTimeouts, address?: string) {
  const named = !isIP(settings.host.replace(/^\[|\]$/g, ''));
  return {
    host: address ?? settings.host,
    ...(address && named ? { servername: settings.host } : {}),
    port: settings.port,
    secure: settings.secure,
    // Without an account the server is an open relay on a trusted network: no AUTH.
    auth: settings.account ? { user: settings.account, pass: settings.token } : undefined,
    connectionTimeout: timeouts.connectionMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    dnsTimeout: timeouts.connectionMs,
  };
}

/** What lifts the address rule for SMTP, quoted in the refusal. */
const SMTP_REFUSAL = msg('mail.private_smtp_off');

export interface MailerEgress {
  /** Resolves the SMTP host to all its addresses; defaults to the OS resolver. Tests inject names here. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

/**
 * The SMTP mailer. The transporter is built from the options on first use and rebuilt when any
 * SMTP option (or the sender name) changed since, so root's edits apply to the next mail; the
 * token is a secret option, which the options mirror fetches by request, never from events.
 * Before every mail the host is resolved and each of its addresses judged by the egress policy
 * (rule R1; private addresses only with AllowPrivateNetworkSmtp), and the connection goes to the
 * first checked address, so a rebinding DNS answer never gets a say.
 */
export function createMailer(options: OptionsMirror, timeouts: SmtpTimeouts = defaultSmtpTimeouts, egress: MailerEgress = {}): Mailer {
  let current: { key: string; transporter: Transporter } | undefined;

  function transporterFor(settings: SmtpSettings, address: string): Transporter {
    const key = JSON.stringify({ settings, address });
    if (current?.key !== key) {
      current?.transporter.close();
      current = { key, transporter: nodemailer.createTransport(transportOptions(settings, timeouts, address)) };
    }
    return current.transporter;
  }

  return {
    async send(mail) {
      const settings = smtpSettings(options);
      if ('missing' in settings) throw new SmtpNotConfiguredError(settings.missing);
      const [checked] = await resolveEgressHost(settings.host, {
        allowPrivateNetwork: options.get('AllowPrivateNetworkSmtp'),
        refusal: SMTP_REFUSAL,
        resolve: egress.resolve,
      });
      await transporterFor(settings, checked!.address).sendMail({
        from: { name: settings.fromName, address: settings.from },
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: mail.messageId,
      });
    },
    close() {
      current?.transporter.close();
      current = undefined;
    },
  };
}
