import { msg } from '@aigw/contracts';
import { validationMessage } from '../src/error-handler';

describe('validation messages', () => {
  it('names each failing field once, fields failing for one reason together', () => {
    const both = msg('users.credentials_required');
    const issues = [
      { where: 'username', message: both },
      { where: 'password', message: both },
    ];
    expect(validationMessage(issues, 'en-US')).toBe('username and password cannot be empty');
    expect(validationMessage(issues, 'zh-CN')).toBe('username, password: 用户名和密码不能为空');
    expect(validationMessage([{ where: 'name', message: 'name must be 1 to 20 characters' }], 'en-US')).toBe('name must be 1 to 20 characters');
    // A message that does not start with its field keeps the field in front.
    expect(
      validationMessage(
        [
          { where: 'quota', message: 'Invalid input: expected number, received string' },
          { where: 'count', message: 'Too small: expected number to be >0' },
        ],
        'zh-CN',
      ),
    ).toBe('quota: Invalid input: expected number, received string; count: Too small: expected number to be >0');
    expect(validationMessage([{ where: 'type', message: 'the type is unknown' }], 'en-US')).toBe('type: the type is unknown');
    // No field at all: the part of the request instead, or the message alone.
    expect(validationMessage([{ where: '', message: 'Invalid input' }], 'en-US', 'body')).toBe('body: Invalid input');
    expect(validationMessage([{ where: '', message: 'Invalid input' }], 'en-US')).toBe('Invalid input');
  });
});
