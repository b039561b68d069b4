import { localizeMessage } from '@aigw/contracts';
import { checkEmail } from '../src/domain/email-rules';

const open = { domainRestriction: false, whitelist: 'gmail.com', aliasRestriction: false };

describe('checkEmail', () => {
  it('accepts anything when no restriction is on', () => {
    expect(checkEmail('a.b+c@example.org', open)).toBeNull();
  });

  it('enforces the domain whitelist, case-insensitively', () => {
    const rules = { ...open, domainRestriction: true, whitelist: 'gmail.com, qq.com' };
    expect(checkEmail('someone@GMAIL.com', rules)).toBeNull();
    const refused = checkEmail('someone@example.org', rules)!;
    expect(localizeMessage(refused, 'en-US')).toBe('the administrator only allows emails from these domains: gmail.com, qq.com');
    expect(localizeMessage(refused, 'zh-CN')).toBe('管理员只允许使用以下域名的邮箱：gmail.com, qq.com');
  });

  it("rejects '+' and '.' aliases when asked to", () => {
    const rules = { ...open, aliasRestriction: true };
    expect(checkEmail('plain@example.org', rules)).toBeNull();
    expect(localizeMessage(checkEmail('a+b@example.org', rules)!, 'en-US')).toBe("email aliases ('+' or '.' in the name part) are not allowed");
    expect(localizeMessage(checkEmail('a.b@example.org', rules)!, 'zh-CN')).toBe("不允许使用邮箱别名（用户名部分含 '+' 或 '.'）");
  });
});
