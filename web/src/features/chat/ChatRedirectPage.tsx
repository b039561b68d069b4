/** Filled in by its screen's work. */
export function ChatRedirectPage() {
  return null;
}

export default ChatRedirectPage;
