import type { Page } from '@aigw/contracts';

/** Changes every cached page of a list query with `recipe`; returns one undo per page. */
export type PatchPages<Row> = (recipe: (page: Page<Row>) => void) => Array<{ undo(): void }>;

/**
 * An optimistic enable/disable of a list row (tokens, redemption codes): the row shows the new
 * status at once on every cached page, takes the server's answer when it comes (the server may
 * derive another status, e.g. a token shown as expired), and comes back on failure.
 */
export async function setStatusOptimistically<Row extends { id: number; status: number }>(
  patchPages: PatchPages<Row>,
  id: number,
  status: number,
  answered: Promise<{ data: Row }>,
): Promise<void> {
  const patchRow = (change: (row: Row) => void) =>
    patchPages((page) => {
      const row = page.items.find((item) => item.id === id);
      if (row) change(row);
    });
  const optimistic = patchRow((row) => {
    row.status = status;
  });
  try {
    const { data } = await answered;
    patchRow((row) => Object.assign(row, data));
  } catch {
    for (const patch of optimistic) patch.undo();
  }
}
