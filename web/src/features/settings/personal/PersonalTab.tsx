/** Filled in by its screen's work. */
export function PersonalTab() {
  return null;
}

export default PersonalTab;
