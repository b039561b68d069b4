/** Filled in by its screen's work. */
export function TokensPage() {
  return null;
}

export default TokensPage;
