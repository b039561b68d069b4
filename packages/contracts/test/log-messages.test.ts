import { logContentFor, logMessageOf, logMessageTemplates, renderLogMessage, type LogMessageId } from '../src/index';

const placeholders = (template: string) => [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe('log messages', () => {
  it('says every message in both languages, with the same parameters', () => {
    for (const [id, templates] of Object.entries(logMessageTemplates)) {
      expect([id, placeholders(templates['zh-CN'])]).toEqual([id, placeholders(templates['en-US'])]);
      expect(templates['zh-CN']).toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it("renders a row's message in the reader's language, and an older row's stored text as it is", () => {
    const message = { id: 'quota.admin_set' as LogMessageId, params: { admin: 'root', from: '$1.00', to: '$0.50' } };
    const row = { content: renderLogMessage(message, 'en-US'), other: JSON.stringify({ message }) };
    expect(row.content).toBe('admin root changed the quota from $1.00 to $0.50');
    expect(logContentFor(row, 'zh-CN,zh;q=0.9')).toBe('管理员 root 将额度从 $1.00 修改为 $0.50');
    expect(logContentFor(row, 'en-US')).toBe('admin root changed the quota from $1.00 to $0.50');
    expect(logContentFor({ content: 'written before messages', other: '' }, 'en-US')).toBe('written before messages');
    // A usage row's other, an unknown id, or broken JSON: the stored text.
    expect(logMessageOf(JSON.stringify({ model_ratio: 1 }))).toBeNull();
    expect(logMessageOf(JSON.stringify({ message: { id: 'no.such', params: {} } }))).toBeNull();
    expect(logContentFor({ content: 'kept', other: '{"message":' }, 'zh-CN')).toBe('kept');
  });
});
