/** Filled in by its screen's work. */
export function OperationTab() {
  return null;
}

export default OperationTab;
