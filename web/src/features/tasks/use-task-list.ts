import { useState } from 'react';
import type { TablePaginationConfig } from 'antd';
import { useIntl } from 'react-intl';
import { useAccess } from '../../app/hooks';
import { pageSizeChosen, pageSizeOptions } from '../../app/preferences';
import { useAppDispatch, useAppSelector } from '../../app/store';
import type { TimeWindow } from '../logs/time';
import type { TaskListArgs } from './api';
import { initialTaskFilters, toTaskFilterArgs, type TaskFilterArgs, type TaskFilterValues } from './TaskFilters';

/**
 * The list state the drawing and task screens share: filters fixed when the screen opens with
 * its default window, the page, and the page-size preference.
 */
export function useTaskList(defaultWindow: () => TimeWindow) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const { isAdmin } = useAccess();
  const pageSize = useAppSelector((state) => state.preferences.pageSize);
  const [initialValues] = useState(() => initialTaskFilters(defaultWindow()));
  const [filters, setFilters] = useState<TaskFilterArgs>(() => toTaskFilterArgs(initialValues, isAdmin));
  const [page, setPage] = useState(1);
  const args: TaskListArgs = { admin: isAdmin, p: page, page_size: pageSize, ...filters };

  /** Returns true when nothing changed, so the caller asks the server again itself. */
  const search = (values: TaskFilterValues): boolean => {
    const next = toTaskFilterArgs(values, isAdmin);
    if (JSON.stringify(next) === JSON.stringify(filters) && page === 1) return true;
    setFilters(next);
    setPage(1);
    return false;
  };

  const pagination = (total: number): TablePaginationConfig => ({
    current: page,
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

  return { isAdmin, initialValues, args, search, pagination };
}
