/** Filled in by its screen's work. */
export function ChannelEditPage() {
  return null;
}

export default ChannelEditPage;
