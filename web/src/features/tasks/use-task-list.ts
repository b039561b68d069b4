import { useListFilters } from '../../components/use-list-filters';
import type { TimeWindow } from '../logs/time';
import type { TaskListArgs } from './api';
import { initialTaskFilters, toTaskFilterArgs } from './TaskFilters';

/** The list state the drawing and task screens share, opening on `defaultWindow`, and their query's arguments. */
export function useTaskList(defaultWindow: () => TimeWindow) {
  const list = useListFilters(() => initialTaskFilters(defaultWindow()), toTaskFilterArgs);
  const args: TaskListArgs = { admin: list.isAdmin, p: list.paging.page, page_size: list.paging.pageSize, ...list.filters };
  return { ...list, args };
}

export type TaskList = ReturnType<typeof useTaskList>;
