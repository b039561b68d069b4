/** Filled in by its screen's work. */
export function ResetPage() {
  return null;
}

export default ResetPage;
