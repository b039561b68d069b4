import { useState } from 'react';
import { useAccess } from '../app/hooks';
import { useTablePaging } from './use-table-paging';

/**
 * The state of a filtered, paged list screen (logs, drawings, tasks). The form's initial values
 * are fixed when the screen opens (its default time window, which moves with the clock); `search`
 * applies the form and goes back to page 1. The same filters again on page 1 change no query
 * argument, so `search` returns true and the caller asks the server again itself (the query
 * button is also a refresh).
 */
export function useListFilters<Values, Filters>(initial: () => Values, toFilters: (values: Values, admin: boolean) => Filters) {
  const { isAdmin } = useAccess();
  const paging = useTablePaging();
  const [initialValues] = useState(initial);
  const [filters, setFilters] = useState(() => toFilters(initialValues, isAdmin));

  const search = (values: Values): boolean => {
    const next = toFilters(values, isAdmin);
    if (JSON.stringify(next) === JSON.stringify(filters) && paging.page === 1) return true;
    setFilters(next);
    paging.setPage(1);
    return false;
  };

  return { isAdmin, initialValues, filters, paging, search };
}
