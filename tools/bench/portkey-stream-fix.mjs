// Preloaded into the Portkey gateway by the benchmark (node --import). Portkey 1.15.2 on
// @hono/node-server > 1.14.2 (we have 1.19.x) answers every streaming request with 500
// "Something went wrong": its ResponseService.updateHeaders appends to the headers of the
// upstream fetch Response, which are immutable (Portkey-AI/gateway issues #1389 and #1550,
// unmerged fixes in PRs #1390 and #1551). This gives streamed upstream responses a mutable copy
// of their headers, which is what the older @hono/node-server did; non-streaming responses,
// which work as is, are left alone so Portkey pays nothing extra there.
const NativeResponse = globalThis.Response;
const nativeFetch = globalThis.fetch;

globalThis.fetch = async function fetchWithMutableStreamHeaders(input, init) {
  const response = await nativeFetch(input, init);
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
  return new NativeResponse(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
};
