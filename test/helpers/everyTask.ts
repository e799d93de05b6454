import type { TaskIndex } from '../../src/tasks/index.ts';
import type { TaskConfig } from '../../src/tasks/config.ts';

/**
 * Every task the index knows, once each, in the order its names reach them. Each name is resolved on its own: one
 * request of every name at once is refused (a group and a task it holds, as lm-eval refuses them).
 */
export function everyTask(index: TaskIndex): TaskConfig[] {
  const tasks = new Map<string, TaskConfig>();
  for (const name of index.names()) for (const task of index.resolve([name]).tasks) if (!tasks.has(task.task)) tasks.set(task.task, task);
  return [...tasks.values()];
}
