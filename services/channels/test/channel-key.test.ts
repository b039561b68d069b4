import crypto from 'node:crypto';
import { joinKeys, localizeMessage, splitKeys } from '@aigw/contracts';
import { hashKey, keyProblem } from '../src/domain/channel-key';

describe('channel keys at rest', () => {
  it('hashes the trimmed key', () => {
    expect(hashKey(' abc \n')).toBe(crypto.createHash('sha256').update('abc').digest('hex'));
  });

  it('splits a batch into distinct non-blank lines, but keeps a JSON key whole', () => {
    expect(splitKeys('k1\r\n\n  k2 \nk1\n')).toEqual(['k1', 'k2']);
    expect(splitKeys('{\n  "type": "service_account",\n  "private_key": "x"\n}')).toHaveLength(1);
  });

  it('reads a JSON array of service accounts as one key each, and joins keys back into what it reads', () => {
    const accounts = [{ client_email: 'a@p' }, { client_email: 'b@p' }];
    const keys = splitKeys(JSON.stringify(accounts, null, 2));
    expect(keys).toEqual(accounts.map((account) => JSON.stringify(account)));
    expect(splitKeys(joinKeys(keys))).toEqual(keys);
    expect(splitKeys(joinKeys(['k1', 'k2']))).toEqual(['k1', 'k2']);
    // Brackets that are not a JSON array of objects are an ordinary line.
    expect(splitKeys('[not json]\nk2')).toEqual(['[not json]', 'k2']);
  });
});

describe('keyProblem: the key formats of the signed providers', () => {
  const account = JSON.stringify({
    type: 'service_account',
    project_id: 'p',
    client_email: 'a@p.iam.gserviceaccount.com',
    private_key: '-----BEGIN PRIVATE KEY-----',
  });

  it.each([
    [33, 'AKIA1|secret|us-east-1', ''],
    [33, 'AKIA1|secret|eu-west-3|session-token', ''],
    [33, 'AKIA1|secret', 'ap-northeast-1'],
    [41, account, 'us-central1'],
    [15, 'api-key|secret-key', ''],
    [16, 'id.secret', ''],
    [18, 'appid|apisecret|apikey', 'v3.5'],
    [23, '1300000000|secret-id|secret-key', ''],
    [1, 'sk-anything at all', ''],
  ])('takes a good key for type %i', (type, key, other) => {
    expect(keyProblem(type, key, other)).toBeNull();
  });

  it.each([
    [33, 'AKIA1|secret', '', /^key: an AWS Bedrock key is "access key\|secret key\|region"/],
    [33, 'AKIA1|secret|not a region', '', /AWS Bedrock/],
    [33, 'just-one-key', 'us-east-1', /AWS Bedrock/],
    [41, 'sk-not-json', 'us-central1', /^key: a Vertex AI key is a service-account JSON key/],
    [41, JSON.stringify({ project_id: 'p' }), 'us-central1', /Vertex AI/],
    [15, 'only-the-api-key', '', /^key: a Baidu key is "API key\|secret key"$/],
    [16, 'no-dot-here', '', /^key: a Zhipu v3 key is "id.secret"$/],
    [23, 'secret-id|secret-key', '', /Tencent Hunyuan/],
  ])('names what is wrong with a key for type %i', (type, key, other, message) => {
    expect(localizeMessage(keyProblem(type, key, other)!, 'en-US')).toMatch(message);
  });

  it('words a refusal in zh-CN too', () => {
    expect(localizeMessage(keyProblem(15, 'only-the-api-key', '')!, 'zh-CN')).toBe('key：百度密钥的格式为“APIKey|SecretKey”');
  });
});
