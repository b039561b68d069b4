import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { ProviderContext, UpstreamRequest } from '../types.js';
import { bedrockCredentials } from './api.js';

/** A Sha256 for the signer: node's crypto, as the AWS SDK uses in Node. */
class Sha256 extends Hash {
  constructor(secret?: Parameters<typeof Hash.prototype.update>[0]) {
    super('sha256', secret);
  }
}

/**
 * Signs a Bedrock call with AWS Signature Version 4 (service `bedrock`, the channel's region):
 * `x-amz-date`, `x-amz-content-sha256`, the session token when there is one, and the
 * `Authorization` header over the method, path, query, those headers and the body's hash.
 */
export async function signBedrock(request: UpstreamRequest, context: Pick<ProviderContext, 'channel' | 'key'>, now = new Date()): Promise<UpstreamRequest> {
  const credentials = bedrockCredentials(context.channel, context.key);
  const url = new URL(request.url);
  const signer = new SignatureV4({
    service: 'bedrock',
    region: credentials.region,
    credentials: {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}),
    },
    sha256: Sha256,
    applyChecksum: true,
  });
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = value;
  const headers: Record<string, string> = { ...lowerCased(request.headers), host: url.host };
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      headers,
      ...(request.body === undefined ? {} : { body: request.body }),
    },
    { signingDate: now },
  );
  // `host` is what the connection sends anyway; the other signed headers go with the call.
  const { host: _host, ...sent } = signed.headers;
  return { ...request, headers: sent };
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
