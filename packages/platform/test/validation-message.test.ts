import { issueMessage, localizeMessage, msg } from '@aigw/contracts';
import { z } from 'zod';
import { validationMessage } from '../src/validation-message';

describe('validation messages', () => {
  it('names each failing field once, fields failing for one reason together', () => {
    const both = msg('users.credentials_required');
    const issues = [
      { where: 'username', message: both },
      { where: 'password', message: both },
    ];
    expect(validationMessage(issues, 'en-US')).toBe('username and password cannot be empty');
    // Whether a message names its fields is read from its English words: the same in Chinese.
    expect(validationMessage(issues, 'zh-CN')).toBe('用户名和密码不能为空');
    expect(validationMessage([{ where: 'name', message: 'name must be 1 to 20 characters' }], 'en-US')).toBe('name must be 1 to 20 characters');
    // A message that does not start with its field keeps the field in front.
    const required = msg('validation.required');
    const tooSmall = msg('validation.number_above', { minimum: '0' });
    expect(
      validationMessage(
        [
          { where: 'quota', message: required },
          { where: 'count', message: tooSmall },
          { where: 'name', message: required },
        ],
        'zh-CN',
      ),
    ).toBe('quota, name: 不能为空; count: 必须大于 0');
    expect(validationMessage([{ where: 'type', message: 'the type is unknown' }], 'en-US')).toBe('type: the type is unknown');
    // No field at all: the part of the request instead, or the message alone.
    expect(validationMessage([{ where: '', message: msg('validation.invalid') }], 'en-US', 'body')).toBe('body: is invalid');
    expect(validationMessage([{ where: '', message: msg('validation.invalid') }], 'en-US')).toBe('is invalid');
  });

  it("words zod's issues by their code, never zod's English", () => {
    const schema = z.strictObject({
      name: z.string().min(1),
      title: z.string().min(3).max(5),
      email: z.email(),
      url: z.url(),
      kind: z.enum(['a', 'b']),
      count: z.number().int().positive(),
      ratio: z.number().max(1),
      tags: z.array(z.string()).min(1),
      flag: z.boolean(),
      own: z.string().refine(() => false, msg('users.credentials_required')),
    });
    const issues = schema.safeParse({
      name: '',
      title: 'toolong',
      email: 'nope',
      url: 'nope',
      kind: 'c',
      count: 1.5,
      ratio: 2,
      tags: [],
      own: 'x',
      extra: 1,
    }).error!.issues;
    const worded = (locale: 'en-US' | 'zh-CN') =>
      Object.fromEntries(issues.map((issue) => [issue.path.join('.') || issue.code, localizeMessage(issueMessage(issue as never), locale)]));
    expect(worded('en-US')).toEqual({
      name: 'cannot be empty',
      title: 'must be at most 5 characters',
      email: 'must be an e-mail address',
      url: 'must be a URL',
      kind: 'must be one of a, b',
      count: 'must be a whole number',
      ratio: 'must be at most 1',
      tags: 'cannot be empty',
      flag: 'is required',
      own: 'username and password cannot be empty',
      unrecognized_keys: 'unknown fields: extra',
    });
    expect(worded('zh-CN')).toMatchObject({ name: '不能为空', flag: '不能为空', kind: '必须是以下之一：a, b', count: '必须是整数' });
    expect(
      localizeMessage(issueMessage({ code: 'invalid_type', expected: 'number', message: 'Invalid input: expected number, received string' }), 'en-US'),
    ).toBe('must be a number');
  });
});
