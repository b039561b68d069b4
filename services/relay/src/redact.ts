/** An upstream that echoes our request must not hand the channel key to the client (test U3). */
export function redactKey(text: string, key: string): string {
  return key.length >= 8 && text.includes(key) ? text.replaceAll(key, '[redacted]') : text;
}
