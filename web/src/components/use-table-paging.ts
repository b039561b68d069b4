import { useEffect, useState } from 'react';
import type { TablePaginationConfig } from 'antd';
import { useIntl } from 'react-intl';
import { pageSizeChosen, pageSizeOptions } from '../app/preferences';
import { useAppDispatch, useAppSelector } from '../app/store';

/**
 * The page of a paged table and its pagination bar. The page size is the saved preference
 * (browser storage `page-size`), shared by every table; choosing another size goes back to page 1.
 * `firstPage` is the page asked for before the user pages: the user list asks for 0 on first
 * load, as the established product does; the bar shows it as page 1.
 */
export function useTablePaging({ firstPage = 1 }: { firstPage?: 0 | 1 } = {}) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const pageSize = useAppSelector((state) => state.preferences.pageSize);
  const [page, setPage] = useState<number>(firstPage);

  /** The bar for `total` rows (the server's count, or the filtered rows of a table paged here). */
  const pagination = (total: number): TablePaginationConfig => ({
    current: Math.max(1, page),
    pageSize,
    total,
    showSizeChanger: true,
    pageSizeOptions: pageSizeOptions.map(String),
    showTotal: (count) => intl.formatMessage({ id: 'common.total', defaultMessage: '共 {total} 条' }, { total: count }),
    onChange: (next, size) => {
      if (size !== pageSize) {
        dispatch(pageSizeChosen(size));
        setPage(1);
      } else {
        setPage(next);
      }
    },
  });

  return { page, setPage, pageSize, pagination };
}

/**
 * Deleting the last row of the last page leaves an empty page: step back to the last page that
 * has rows.
 */
export function useLeaveEmptyPage(paging: ReturnType<typeof useTablePaging>, data: { items: unknown[]; total: number } | undefined): void {
  const { page, pageSize, setPage } = paging;
  useEffect(() => {
    if (data && data.items.length === 0 && data.total > 0 && page > 1) setPage(Math.ceil(data.total / pageSize));
  }, [data, page, pageSize, setPage]);
}
