import { messageProblems, sentencesIn } from '../messages.mjs';

/**
 * Console routes say nothing in words of their own: every message comes from the catalogue by id
 * (packages/contracts/src/messages/), so it reaches the user in their language
 * (tools/docs/messages.mjs says what counts; docs/architecture.md section 3.12).
 */
describe('what console routes say', () => {
  it('comes from the catalogue: no sentence written in place', () => {
    expect(messageProblems().map(({ file, line, message }) => `${file}:${line}: ${message}`)).toEqual([]);
  });
});

describe('the message checker', () => {
  const found = (text: string) => sentencesIn('services/x/src/a.ts', text).map(({ line, message }) => `${line}: ${message.split(':')[0]}`);

  it('finds sentences in errors, answers, schemas, constants and return values', () => {
    const text = [
      "throw new UserError('the code is wrong');",
      "return { success: true, message: 'passkey removed' };",
      "const name = z.string().min(1, 'name is required');",
      "const id = z.number({ error: 'id must be a number' });",
      "const expired = 'the sign-in has expired, please sign in again';",
      'function problem(name: string) {',
      '  return `${name} must not contain spaces`;',
      '}',
      "throw new NotFoundError('未找到令牌');",
    ].join('\n');
    expect(found(text)).toEqual([
      '1: an error message written in place',
      '2: a message written in place',
      '3: a check message written in place',
      '4: a schema error written in place',
      '5: a sentence kept in a constant',
      '7: a sentence returned',
      '9: an error message written in place',
    ]);
  });

  it('passes catalogue messages, codes, paths, SQL, stored rows and marked text', () => {
    const text = [
      "throw new UserError(msg('redemption.invalid'));",
      "return { success: true, message: 'bind' };",
      "const subject = 'billing.usage.recorded';",
      "const sql = 'UPDATE accounts SET quota = quota + 1';",
      "await deliveries.save({ error: 'connection refused by peer' });",
      "const mime = z.string().regex(/x/, 'text/html');",
      '// not a console message: the job run keeps its summary as it is',
      'return `removed ${removed} expired sessions`;',
    ].join('\n');
    expect(found(text)).toEqual([]);
  });
});
