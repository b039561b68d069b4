/** Filled in by its screen's work. */
export function OtherTab() {
  return null;
}

export default OtherTab;
