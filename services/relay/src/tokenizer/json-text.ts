/**
 * The text JSON.stringify gives for a parsed-JSON value (objects, arrays, strings, numbers,
 * booleans, null; undefined, functions and symbols dropped from objects and null in arrays, as
 * JSON.stringify does), built with an explicit stack. JSON.stringify recurses and overflows the
 * stack a few thousand levels down; the token counter reads whatever a client sent, so it must
 * not (issue 22: a tool schema nested 10,000 deep answered 500).
 */
export function jsonText(value: unknown): string {
  if (!serializable(value)) return '';
  const out: string[] = [];
  // LIFO: a container pushes its closing text, then its members in reverse, then its opening.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Literal) {
      out.push(item.text);
    } else if (Array.isArray(item)) {
      stack.push(CLOSE_ARRAY);
      for (let index = item.length - 1; index >= 0; index--) {
        const member: unknown = item[index];
        stack.push(serializable(member) ? member : null);
        if (index > 0) stack.push(COMMA);
      }
      stack.push(OPEN_ARRAY);
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item as Record<string, unknown>).filter(([, member]) => serializable(member));
      stack.push(CLOSE_OBJECT);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, member] = entries[index]!;
        stack.push(member, new Literal(`${JSON.stringify(key)}:`));
        if (index > 0) stack.push(COMMA);
      }
      stack.push(OPEN_OBJECT);
    } else {
      // Scalars: JSON.stringify does not recurse for them (non-finite numbers become null).
      out.push(typeof item === 'bigint' ? item.toString() : JSON.stringify(item));
    }
  }
  return out.join('');
}

/** Literal output, told apart from the values on the same stack (which JSON never makes instances of). */
class Literal {
  constructor(readonly text: string) {}
}

const OPEN_ARRAY = new Literal('[');
const CLOSE_ARRAY = new Literal(']');
const OPEN_OBJECT = new Literal('{');
const CLOSE_OBJECT = new Literal('}');
const COMMA = new Literal(',');

function serializable(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

/**
 * The UTF-8 byte length of `jsonText(value)`, without building the text: the same walk (an
 * explicit stack, so any depth is safe), summing lengths. Only strings and keys are escaped, one
 * at a time (JSON.stringify does not recurse for them); the text is well-formed (JSON.stringify
 * escapes lone surrogates), so its bytes bound its tokens (`textTokenBound`).
 */
export function jsonTextBytes(value: unknown): number {
  if (!serializable(value)) return 0;
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      // Brackets, and a comma between members; a member JSON drops becomes null.
      bytes += 2 + Math.max(item.length - 1, 0);
      for (const member of item as unknown[]) {
        if (serializable(member)) stack.push(member);
        else bytes += NULL_BYTES;
      }
    } else if (typeof item === 'object' && item !== null) {
      let members = 0;
      for (const [key, member] of Object.entries(item as Record<string, unknown>)) {
        if (!serializable(member)) continue;
        // "key": (the colon), and the member on the stack.
        bytes += stringBytes(key) + 1;
        stack.push(member);
        members += 1;
      }
      bytes += 2 + Math.max(members - 1, 0);
    } else if (typeof item === 'string') {
      bytes += stringBytes(item);
    } else {
      // Numbers, booleans, null: short ASCII, as jsonText writes them.
      bytes += typeof item === 'bigint' ? item.toString().length : JSON.stringify(item).length;
    }
  }
  return bytes;
}

const NULL_BYTES = 4;

/** Bytes of a string as JSON: quotes and escapes included. Most strings need no escape and are not copied. */
function stringBytes(text: string): number {
  return needsEscape.test(text) ? Buffer.byteLength(JSON.stringify(text), 'utf8') : Buffer.byteLength(text, 'utf8') + 2;
}

/**
 * What JSON.stringify escapes in a string: quotes, backslashes, control characters, lone
 * surrogates. Testing for them is about twice as fast as escaping every string.
 */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const needsEscape = /["\\\u0000-\u001f]|\p{Cs}/u;
