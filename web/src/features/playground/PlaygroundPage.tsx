/** Filled in by its screen's work. */
export function PlaygroundPage() {
  return null;
}

export default PlaygroundPage;
