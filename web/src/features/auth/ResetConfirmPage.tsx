/** Filled in by its screen's work. */
export function ResetConfirmPage() {
  return null;
}

export default ResetConfirmPage;
