import { createHash, createHmac } from 'node:crypto';
import { ChannelType } from '@aigw/contracts';
import { tencentProvider } from '../../src/providers/tencent/index.js';
import { signTc3 } from '../../src/providers/tencent/sign.js';
import { TencentAnswerError } from '../../src/providers/tencent/error.js';
import { ChannelConfigurationError } from '../../src/providers/shared/url.js';
import type { AuthorizeTools, StreamOutput } from '../../src/providers/types.js';
import { channel, chunksOf, context, fixtureJson, fixtureText, lastUsage, sampleChatRequest, textOf, runStream } from './support.js';

const KEY = '1300000000|AKIDmockmockmockmockmock|mockSecretKeyForHunyuan';
const tencent = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ key: KEY, upstreamModel: 'hunyuan-lite', requestedModel: 'hunyuan', channel: channel({ type: ChannelType.Tencent }), ...overrides });
const noTools: AuthorizeTools = { accessToken: () => Promise.reject(new Error('Tencent exchanges no token')) };

/** Feeds a stream through the provider's own framer and the converter, as the relay does. */
const runTencentStream = (text: string, chunkSize = 13): StreamOutput[] =>
  runStream(tencentProvider.chat.stream(tencent({ stream: true })), text, chunkSize, tencentProvider.framing!());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text).digest();

describe('tencent hunyuan provider: requests and signing', () => {
  it('sends ChatCompletions to / of the host: Model, Messages (system first), Stream, Temperature, TopP', () => {
    const request = tencentProvider.chat.request(
      {
        model: 'hunyuan',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: 'Answer in French.' },
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Bonjour' },
          { role: 'user', content: 'Bye' },
        ],
        temperature: 1.3,
        top_p: 0.4,
      },
      tencent(),
    );
    expect(request).toEqual({
      method: 'POST',
      url: 'https://hunyuan.tencentcloudapi.com/',
      headers: { 'Content-Type': 'application/json', 'X-TC-Action': 'ChatCompletions', 'X-TC-Version': '2023-09-01' },
      body: JSON.stringify({
        Model: 'hunyuan-lite',
        Messages: [
          { Role: 'system', Content: 'Be brief.\n\nAnswer in French.' },
          { Role: 'user', Content: 'Hi' },
          { Role: 'assistant', Content: 'Bonjour' },
          { Role: 'user', Content: 'Bye' },
        ],
        Stream: false,
        Temperature: 1.3,
        TopP: 0.4,
      }),
    });
  });

  it('asks for a stream, reports what it cannot send, and takes base_url and the overrides', () => {
    const request = tencentProvider.chat.request(
      sampleChatRequest({ stream: true, stream_options: { include_usage: true } }),
      tencent({ channel: channel({ type: ChannelType.Tencent, base_url: 'http://127.0.0.1:9300/', param_override: { EnableEnhancement: false } }) }),
    );
    expect(request.url).toBe('http://127.0.0.1:9300/');
    expect(JSON.parse(request.body!)).toMatchObject({ Stream: true, EnableEnhancement: false });
    expect(request.warnings).toEqual([
      'parameter "tools" is not supported by Tencent Hunyuan and was dropped',
      'parameter "tool_choice" is not supported by Tencent Hunyuan and was dropped',
      'parameter "max_tokens" is not supported by Tencent Hunyuan and was dropped',
      'parameter "stop" is not supported by Tencent Hunyuan and was dropped',
      'content part "image_url" is not supported by Tencent Hunyuan and was dropped',
      'content part "image_url" is not supported by Tencent Hunyuan and was dropped',
    ]);
  });

  it("computes TencentCloud's own TC3-HMAC-SHA256 example signature (docs, 'Signature v3')", () => {
    const signed = signTc3(
      {
        method: 'POST',
        url: 'https://cvm.tencentcloudapi.com/',
        headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-TC-Action': 'DescribeInstances' },
        body: '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}',
      },
      { service: 'cvm', secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE', secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE', timestamp: 1551113065 },
    );
    expect(signed.headers).toEqual({
      'Content-Type': 'application/json; charset=utf-8',
      'X-TC-Action': 'DescribeInstances',
      Host: 'cvm.tencentcloudapi.com',
      'X-TC-Timestamp': '1551113065',
      Authorization:
        'TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168',
    });
  });

  it('signs every call: content-type, host and the action signed, the timestamp now, the region when the channel has one', async () => {
    const ctx = tencent({ channel: channel({ type: ChannelType.Tencent, other: 'ap-guangzhou' }) });
    const built = tencentProvider.chat.request({ messages: [{ role: 'user', content: 'Hi' }] }, ctx);
    const before = Math.floor(Date.now() / 1000);
    const signed = await tencentProvider.authorize!(built, ctx, noTools);
    const timestamp = Number(signed.headers['X-TC-Timestamp']);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(signed).toEqual({
      ...built,
      headers: {
        ...built.headers,
        'X-TC-Region': 'ap-guangzhou',
        Host: 'hunyuan.tencentcloudapi.com',
        'X-TC-Timestamp': String(timestamp),
        Authorization: expect.any(String),
      },
    });
    // Recomputed here from the documented steps, independently of the signer.
    const date = new Date(timestamp * 1000).toISOString().slice(0, 10);
    const canonical = [
      'POST',
      '/',
      '',
      'content-type:application/json\nhost:hunyuan.tencentcloudapi.com\nx-tc-action:chatcompletions\n',
      'content-type;host;x-tc-action',
      sha256(built.body!),
    ].join('\n');
    const toSign = ['TC3-HMAC-SHA256', String(timestamp), `${date}/hunyuan/tc3_request`, sha256(canonical)].join('\n');
    const key = hmac(hmac(hmac('TC3mockSecretKeyForHunyuan', date), 'hunyuan'), 'tc3_request');
    expect(signed.headers.Authorization).toBe(
      `TC3-HMAC-SHA256 Credential=AKIDmockmockmockmockmock/${date}/hunyuan/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=${createHmac('sha256', key).update(toSign).digest('hex')}`,
    );
    expect((await tencentProvider.authorize!(built, tencent(), noTools)).headers['X-TC-Region']).toBeUndefined();
  });

  it('refuses a key that is not AppId|SecretId|SecretKey', async () => {
    const built = tencentProvider.chat.request({ messages: [{ role: 'user', content: 'Hi' }] }, tencent());
    for (const key of ['AKID|secret', '1300|AKID|', 'a|b|c|d']) {
      await expect(tencentProvider.authorize!(built, tencent({ key }), noTools)).rejects.toThrow(ChannelConfigurationError);
    }
  });
});

describe('tencent hunyuan provider: answers, streams and errors', () => {
  it('converts a Response with its usage', () => {
    const result = tencentProvider.chat.response(fixtureJson('tencent/chat-response.json'), tencent());
    expect(result.usage).toEqual({ prompt_tokens: 6, completion_tokens: 10, cached_tokens: 0 });
    expect(result.body).toEqual({
      id: 'e4b7a6c5-0a53-4d3c-9d1a-3f0b9c2e7a11',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'hunyuan-lite',
      choices: [{ index: 0, message: { role: 'assistant', content: '你好！有什么可以帮你的吗？' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 6, completion_tokens: 10, total_tokens: 16, prompt_tokens_details: { cached_tokens: 0 } },
    });
    const moderated = { Response: { Choices: [{ Message: { Content: '' }, FinishReason: 'sensitive' }] } };
    expect(tencentProvider.chat.response(moderated, tencent()).body).toMatchObject({ choices: [{ finish_reason: 'content_filter' }] });
  });

  it('throws Response.Error as the error it is: a signature Tencent refuses is an authentication failure', () => {
    const refusal = () => tencentProvider.chat.response(fixtureJson('tencent/signature-failure.json'), tencent());
    expect(refusal).toThrow(TencentAnswerError);
    expect(refusal).toThrow(expect.objectContaining({ statusCode: 401, type: 'authentication_error', code: 'AuthFailure.SignatureFailure' }));
    const limited = { Response: { Error: { Code: 'RequestLimitExceeded', Message: 'too many' } } };
    expect(() => tencentProvider.chat.response(limited, tencent())).toThrow(expect.objectContaining({ statusCode: 429, type: 'rate_limit_error' }));
    const arrears = { Response: { Error: { Code: 'FailedOperation.ServiceStopArrears', Message: 'in arrears' } } };
    expect(() => tencentProvider.chat.response(arrears, tencent())).toThrow(expect.objectContaining({ type: 'insufficient_quota' }));
    expect(() => tencentProvider.chat.response({ Choices: [] }, tencent())).toThrow('tencent upstream answered with an unexpected body: Response');
  });

  it.each([1, 13, 500])('converts the stream (chunks of %i bytes): deltas, the finish chunk, then the usage of the last event', (chunkSize) => {
    const outputs = runTencentStream(fixtureText('tencent/chat-stream.sse'), chunkSize);
    const chunks = chunksOf(outputs);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '你好' },
      { content: '！有什么可以帮你的吗？' },
      {},
      null,
    ]);
    expect(chunks.every((chunk) => chunk.id === '1c2d7f1e-5c3a-4e8e-9a0b-5d4c3b2a1f00' && chunk.model === 'hunyuan-lite')).toBe(true);
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('stop');
    expect(outputs.at(-1)!.usageOnly).toBe(true);
    // The usage of the finishing event, not the running totals before it.
    expect(lastUsage(outputs)).toEqual({ prompt_tokens: 6, completion_tokens: 10, cached_tokens: 0 });
    expect(textOf(outputs)).toBe('你好！有什么可以帮你的吗？');
  });

  it('reports the Response.Error Tencent answers in place of a stream, and a cut stream reports no usage', () => {
    expect(runTencentStream(fixtureText('tencent/signature-failure.json'), 9)).toEqual([
      {
        error: {
          message: 'The provided credentials could not be validated. Please check your signature is correct.',
          type: 'authentication_error',
          code: 'AuthFailure.SignatureFailure',
        },
      },
    ]);
    const cut = runTencentStream(fixtureText('tencent/chat-stream.sse').split('\n\n').slice(0, 2).join('\n\n'));
    expect(textOf(cut)).toBe('你好！有什么可以帮你的吗？');
    expect(lastUsage(cut)).toBeNull();
  });

  it('maps error bodies of any status by their code, others by their text', () => {
    expect(tencentProvider.error(200, fixtureText('tencent/signature-failure.json'))).toEqual({
      message: 'The provided credentials could not be validated. Please check your signature is correct.',
      type: 'authentication_error',
      code: 'AuthFailure.SignatureFailure',
    });
    expect(tencentProvider.error(200, '{"Response":{"Error":{"Code":"InvalidParameterValue.Model","Message":"bad model"}}}').type).toBe(
      'invalid_request_error',
    );
    expect(tencentProvider.error(200, '{"Response":{"Error":{"Code":"InternalError","Message":"oops"}}}').type).toBe('server_error');
    expect(tencentProvider.error(502, 'Bad Gateway')).toEqual({ message: 'Bad Gateway', type: 'upstream_error', code: '502' });
    expect(tencentProvider.operations).toEqual(['chat']);
    expect(tencentProvider.streamUsage).toBe(true);
  });
});
