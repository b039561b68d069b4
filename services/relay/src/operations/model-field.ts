import { RelayError } from '../errors.js';

/** The model field every operation needs: a non-empty string of at most 128 characters. */
export function modelOf(body: Record<string, unknown>): string {
  const model = typeof body.model === 'string' ? body.model.trim() : '';
  if (!model || model.length > 128) throw new RelayError(400, 'model is required', 'invalid_request', 'invalid_request_error', 'model');
  return model;
}
