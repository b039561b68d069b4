import { fetchBaseQuery, type BaseQueryFn, type FetchArgs } from '@reduxjs/toolkit/query/react';
import { defineMessages } from 'react-intl';
import type { Envelope } from '@aigw/contracts';
import { feedback } from '../app/feedback';
import { currentPath, navigate } from '../app/navigation';
import type { PreferencesState } from '../app/preferences';
import { signedOut, type SessionState } from '../app/session';

/** A failed call: an HTTP status, or BUSINESS for an envelope with `success: false`. */
export interface ApiError {
  status: number | 'BUSINESS' | 'NETWORK';
  message: string;
}

/** The whole envelope, for endpoints that need its message (or fields beside `data`). */
export interface EnvelopeMeta {
  message: string;
  envelope: Envelope & Record<string, unknown>;
}

export interface ApiExtraOptions {
  /** Do not toast a failure: the caller shows it its own way. */
  silent?: boolean;
}

export const errorMessages = defineMessages({
  tooManyRequests: { id: 'errors.http.429', defaultMessage: '请求次数过多，请稍后再试！' },
  serverError: { id: 'errors.http.500', defaultMessage: '服务器内部错误，请联系管理员！' },
  demoSite: { id: 'errors.http.405', defaultMessage: '本站仅作演示之用，无服务端！' },
  unreachable: { id: 'errors.network', defaultMessage: '无法连接到服务器' },
  badAnswer: { id: 'errors.badAnswer', defaultMessage: '服务器的响应无法识别，请稍后再试' },
});

const rawBaseQuery = fetchBaseQuery({
  // Absolute, so the same code runs where Request needs a full URL (the component tests).
  baseUrl: `${window.location.origin}/api`,
  credentials: 'same-origin',
  prepareHeaders(headers, { getState }) {
    const { session, preferences } = getState() as { session: SessionState; preferences: PreferencesState };
    // The established product's CSRF guard: the session's user id, repeated in a header.
    if (session.user) headers.set('New-Api-User', String(session.user.id));
    headers.set('Cache-Control', 'no-store');
    // The console's chosen language: the server writes the user's mails in it.
    headers.set('Accept-Language', preferences.locale);
    return headers;
  },
});

function messageOf(data: unknown, fallback: string): string {
  if (data && typeof data === 'object' && 'message' in data && typeof data.message === 'string' && data.message) return data.message;
  if (typeof data === 'string' && data) return data;
  return fallback;
}

/**
 * The one base query of the console API: unwraps `{success, message, data}` to `data`, turns
 * `success: false` into an error toast with the server's message, sends a 401 to
 * /login?expired=true, and shows the product's messages for 429, 500 and 405 (docs/product.md
 * section 11).
 */
export const envelopeBaseQuery: BaseQueryFn<string | FetchArgs, unknown, ApiError, ApiExtraOptions, EnvelopeMeta> = async (args, api, extraOptions) => {
  const result = await rawBaseQuery(args, api, {});
  const silent = extraOptions?.silent === true;

  if (result.error) {
    const { status } = result.error;
    if (status === 401) {
      // Only a session that was signed in can have expired; after a logout or an account
      // deletion, calls still in flight fail quietly instead of announcing an expiry.
      const wasSignedIn = (api.getState() as { session: SessionState }).session.user !== null;
      if (wasSignedIn) {
        api.dispatch(signedOut({ expired: true }));
        if (currentPath() !== '/login') navigate('/login?expired=true', { replace: true });
      }
      return { error: { status: 401, message: messageOf(result.error.data, 'unauthorized') } };
    }
    if (typeof status === 'number') {
      const message = messageOf(result.error.data, `HTTP ${status}`);
      if (!silent) {
        if (status === 429) feedback.error(errorMessages.tooManyRequests);
        else if (status === 500) feedback.error(errorMessages.serverError);
        else if (status === 405) feedback.error(errorMessages.demoSite);
        else feedback.error(message);
      }
      return { error: { status, message } };
    }
    // A body that is not JSON (a proxy's error page) is a bad answer; anything else means the
    // server was not reached. The browser's own words ("Failed to fetch") stay in the error.
    const badAnswer = status === 'PARSING_ERROR';
    const message = 'error' in result.error ? String(result.error.error) : 'network error';
    if (!silent) feedback.error(badAnswer ? errorMessages.badAnswer : errorMessages.unreachable);
    return { error: { status: 'NETWORK', message } };
  }

  const envelope = result.data as (Envelope & Record<string, unknown>) | undefined;
  if (!envelope || typeof envelope !== 'object' || typeof envelope.success !== 'boolean') {
    if (!silent) feedback.error(errorMessages.badAnswer);
    return { error: { status: 'NETWORK', message: 'the server answered without an envelope' } };
  }
  if (!envelope.success) {
    if (!silent) feedback.error(envelope.message || 'error');
    return { error: { status: 'BUSINESS', message: envelope.message } };
  }
  return { data: envelope.data ?? null, meta: { message: envelope.message, envelope } };
};
