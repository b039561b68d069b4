import { checkEmail } from '../src/domain/email-rules';

const open = { domainRestriction: false, whitelist: 'gmail.com', aliasRestriction: false };

describe('checkEmail', () => {
  it('accepts anything when no restriction is on', () => {
    expect(checkEmail('a.b+c@example.org', open)).toBeNull();
  });

  it('enforces the domain whitelist, case-insensitively', () => {
    const rules = { ...open, domainRestriction: true, whitelist: 'gmail.com, qq.com' };
    expect(checkEmail('someone@GMAIL.com', rules)).toBeNull();
    expect(checkEmail('someone@example.org', rules)).toMatch(/gmail\.com, qq\.com/);
  });

  it("rejects '+' and '.' aliases when asked to", () => {
    const rules = { ...open, aliasRestriction: true };
    expect(checkEmail('plain@example.org', rules)).toBeNull();
    expect(checkEmail('a+b@example.org', rules)).toMatch(/alias/);
    expect(checkEmail('a.b@example.org', rules)).toMatch(/alias/);
  });
});
