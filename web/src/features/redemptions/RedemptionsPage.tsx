/** Filled in by its screen's work. */
export function RedemptionsPage() {
  return null;
}

export default RedemptionsPage;
