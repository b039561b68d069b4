/**
 * The console API at the network boundary for component tests: routes answer with envelopes
 * (or any status and body), and every call is recorded for assertions. An unexpected call
 * answers 404 and is listed in `unexpected`, so a test sees what it forgot.
 */
export interface RecordedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: any;
}

/** An envelope or any JSON body with a status, or a whole Response (a stream, for instance). */
type Reply = { status?: number; body: unknown } | { response: Response };
type Handler = (call: RecordedCall) => Reply | Promise<Reply>;

export class FakeApi {
  readonly calls: RecordedCall[] = [];
  readonly unexpected: string[] = [];
  private readonly routes = new Map<string, Handler>();
  private spy: jest.SpyInstance | undefined;

  /** Any reply for `METHOD /api/path`. */
  on(method: string, path: string, handler: Handler): this {
    this.routes.set(`${method.toUpperCase()} ${path}`, handler);
    return this;
  }

  /** `{success: true, message, data}`. */
  ok(method: string, path: string, data?: unknown, message = ''): this {
    return this.on(method, path, () => ({ body: { success: true, message, data } }));
  }

  /** `{success: false, message}` with HTTP 200, as the server answers business failures. */
  fail(method: string, path: string, message: string): this {
    return this.on(method, path, () => ({ body: { success: false, message } }));
  }

  /** A real HTTP error status. */
  status(method: string, path: string, status: number, body: unknown = { success: false, message: `HTTP ${status}` }): this {
    return this.on(method, path, () => ({ status, body }));
  }

  callsTo(method: string, path: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method.toUpperCase() && call.path === path);
  }

  /** Forgets every route and recorded call, so one instance can serve test after test. */
  reset(): this {
    this.calls.length = 0;
    this.unexpected.length = 0;
    this.routes.clear();
    return this;
  }

  install(): this {
    this.spy = jest.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const url = new URL(request.url);
      const text = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
      const call: RecordedCall = {
        method: request.method,
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body: text ? JSON.parse(text) : undefined,
      };
      this.calls.push(call);
      const handler = this.routes.get(`${call.method} ${call.path}`);
      if (!handler) {
        this.unexpected.push(`${call.method} ${call.path}`);
        return new Response(JSON.stringify({ success: false, message: 'not found' }), { status: 404, headers: { 'content-type': 'application/json' } });
      }
      const reply = await handler(call);
      if ('response' in reply) return reply.response;
      return new Response(JSON.stringify(reply.body), { status: reply.status ?? 200, headers: { 'content-type': 'application/json' } });
    });
    return this;
  }

  restore(): void {
    this.spy?.mockRestore();
  }
}
