/**
 * The console API from a test, as a signed-in user: for setting up data (users, options) that a
 * test needs before it drives the browser. Same calls the console makes, same envelope.
 */
export interface ApiSession {
  userId: number;
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

export async function register(baseUrl: string, username: string, password: string): Promise<void> {
  const response = await fetch(`${baseUrl}/api/user/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password, password2: password }),
  });
  const envelope = (await response.json()) as { success: boolean; message: string };
  if (!envelope.success) throw new Error(`register ${username}: ${envelope.message}`);
}

export async function signIn(baseUrl: string, username: string, password: string): Promise<ApiSession> {
  const response = await fetch(`${baseUrl}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const envelope = (await response.json()) as { success: boolean; message: string; data: { id: number } };
  if (!envelope.success) throw new Error(`login ${username}: ${envelope.message}`);
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(';', 1)[0])
    .join('; ');
  const userId = envelope.data.id;
  return {
    userId,
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      const answer = await fetch(`${baseUrl}${path}`, {
        method,
        // The server's messages in English, as the tests read them (the console sends its own language).
        headers: {
          cookie,
          'New-Api-User': String(userId),
          'Accept-Language': 'en-US',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const result = (await answer.json()) as { success: boolean; message: string; data: T };
      if (!result.success) throw new Error(`${method} ${path}: ${result.message}`);
      return result.data;
    },
  };
}
