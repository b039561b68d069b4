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
