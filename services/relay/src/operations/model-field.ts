import { MAX_MODEL_NAME_LENGTH } from '@aigw/contracts';
import { RelayError } from '../errors.js';

/** The model field every operation needs: a non-empty string of at most MAX_MODEL_NAME_LENGTH characters. */
export function modelOf(body: Record<string, unknown>): string {
  const model = typeof body.model === 'string' ? body.model.trim() : '';
  if (!model || model.length > MAX_MODEL_NAME_LENGTH) throw new RelayError(400, 'model is required', 'invalid_request', 'invalid_request_error', 'model');
  return model;
}
