/** Filled in by its screen's work. */
export function ChannelsPage() {
  return null;
}

export default ChannelsPage;
