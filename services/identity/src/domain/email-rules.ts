import { msg } from '@aigw/contracts';

/** Registration email rules (established product 6.5): domain whitelist and alias restriction. */
export interface EmailRules {
  domainRestriction: boolean;
  /** Comma-separated domains. */
  whitelist: string;
  aliasRestriction: boolean;
}

/** Returns why the email may not register (a catalogue message), or null when it may. */
export function checkEmail(email: string, rules: EmailRules): string | null {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const domain = email.slice(at + 1).toLowerCase();
  if (rules.domainRestriction) {
    const allowed = rules.whitelist
      .split(',')
      .map((entry) => entry.trim().toLowerCase())
      .filter(Boolean);
    if (!allowed.includes(domain)) return msg('email_rules.domain_not_allowed', { domains: allowed.join(', ') });
  }
  if (rules.aliasRestriction && /[+.]/.test(local)) return msg('email_rules.alias_not_allowed');
  return null;
}
