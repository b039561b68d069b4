/** Filled in by its screen's work. */
export function TasksPage() {
  return null;
}

export default TasksPage;
