/**
 * Asks `read` until `accept` takes its answer, for server state that settles a moment after the
 * call that caused it (usage is billed after the stream ends, over the bus). Returns the accepted
 * answer; throws with the last one when `timeoutMs` runs out.
 */
export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 15_000, what = 'the expected state'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await read();
    if (accept(last)) return last;
    if (Date.now() > deadline) throw new Error(`${what} did not come within ${timeoutMs} ms; last answer: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
