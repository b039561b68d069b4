/** Filled in by its screen's work. */
export function DrawingPage() {
  return null;
}

export default DrawingPage;
