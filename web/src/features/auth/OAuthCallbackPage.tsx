/** Filled in by its screen's work. */
export function OAuthCallbackPage() {
  return null;
}

export default OAuthCallbackPage;
