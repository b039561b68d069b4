/** Filled in by its screen's work. */
export function ChatPage() {
  return null;
}

export default ChatPage;
