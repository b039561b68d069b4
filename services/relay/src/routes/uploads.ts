import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { RelayContext } from '../context.js';
import { callerOf, requireApiKey } from '../caller.js';
import { RelayError } from '../errors.js';
import { relay } from '../relay-call.js';
import { refuseIdempotencyKey } from '../idempotency.js';
import {
  imageEditsOperation,
  imageVariationsOperation,
  transcriptionsOperation,
  translationsOperation,
  type OperationDefinition,
} from '../operations/index.js';

/** A file of a multipart request, read whole. */
export interface UploadedFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

export function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === 'object' && value !== null && Buffer.isBuffer((value as UploadedFile).data) && typeof (value as UploadedFile).filename === 'string';
}

/** The most files and text fields one upload may have (gpt-image edits take up to 16 images). */
const MAX_FILES = 16;
const MAX_FIELDS = 64;
const MAX_FIELD_BYTES = 1024 * 1024;

const paths: Array<[string, OperationDefinition]> = [
  ['/v1/images/edits', imageEditsOperation],
  ['/v1/images/variations', imageVariationsOperation],
  ['/v1/audio/transcriptions', transcriptionsOperation],
  ['/v1/audio/translations', translationsOperation],
];

/**
 * The multipart relay routes (OpenAI's upload APIs). The form is read whole, within
 * RELAY_UPLOAD_LIMIT_BYTES, into the body the operation inspects: text fields as strings
 * (repeated names, such as `image[]`, as arrays) and files as UploadedFile.
 */
export const uploadRoutes: FastifyPluginAsync<{ context: RelayContext }> = async (app, { context }) => {
  await app.register(multipart, {
    limits: { fileSize: context.limits.uploadBytes, files: MAX_FILES, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FILES + MAX_FIELDS },
    throwFileSizeLimit: true,
  });
  for (const [path, operation] of paths) {
    app.post(path, { config: { access: 'public' }, onRequest: requireApiKey(context.tokens) }, async (request, reply) => {
      refuseIdempotencyKey(request);
      await relay(context, request, reply, callerOf(request), operation, await formOf(request, context.limits.uploadBytes));
      return reply;
    });
  }
};

/** The request's form; 400 when it is not multipart, 413 past the limits. */
async function formOf(request: FastifyRequest, maxBytes: number): Promise<Record<string, unknown>> {
  if (!request.isMultipart()) throw new RelayError(400, 'the request must be multipart/form-data', 'invalid_request', 'invalid_request_error');
  const body: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const add = (name: string, value: unknown) => {
    const key = name.endsWith('[]') ? name.slice(0, -2) : name;
    const existing = body[key];
    if (existing === undefined) body[key] = name.endsWith('[]') ? [value] : value;
    else body[key] = Array.isArray(existing) ? [...(existing as unknown[]), value] : [existing, value];
  };
  let total = 0;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        total += data.length;
        if (total > maxBytes) throw tooLarge(maxBytes);
        add(part.fieldname, {
          filename: part.filename || part.fieldname,
          contentType: part.mimetype || 'application/octet-stream',
          data,
        } satisfies UploadedFile);
      } else {
        if (part.valueTruncated)
          throw new RelayError(413, `${part.fieldname} is longer than ${MAX_FIELD_BYTES} bytes`, 'request_too_large', 'invalid_request_error', part.fieldname);
        add(part.fieldname, typeof part.value === 'string' ? part.value : String(part.value));
      }
    }
  } catch (error) {
    if (error instanceof RelayError) throw error;
    throw uploadError(error, maxBytes);
  }
  return { ...body };
}

function tooLarge(maxBytes: number): RelayError {
  return new RelayError(413, `the upload is larger than ${maxBytes} bytes`, 'request_too_large', 'invalid_request_error');
}

/** @fastify/multipart's limit errors as the relay's: 413 for sizes and counts, 400 for a broken form. */
function uploadError(error: unknown, maxBytes: number): RelayError {
  const code = (error as { code?: string }).code ?? '';
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(maxBytes);
  if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return new RelayError(413, `the upload has more than ${MAX_FILES} files or ${MAX_FIELDS} fields`, 'request_too_large', 'invalid_request_error');
  }
  return new RelayError(400, `the multipart form could not be read: ${(error as Error).message}`, 'invalid_request', 'invalid_request_error');
}
