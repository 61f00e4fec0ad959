// Tasks this replica created, as the task statement would read them, until the next change. A new
// task has no background execution (the route that makes one creates its own task), so its row and
// its team's are all the statement would find beyond what the team's and the creator's entries hold:
// the first resolution of a task created here then reads no row at all.
import { Inject, Injectable } from '@nestjs/common';
import { ChangeGeneration, GenerationCache } from '../cache/change-generation';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import type { TaskSelectionFacts } from './resolution-facts.repository';

/** A task created here, and its team as the task was created on it. */
export interface NewTask {
  task: TaskSelectionFacts['task'];
  team: { id: number; namespace: string };
}

/** Tasks whose labels weigh more than this are not kept: the entry would weigh more than the read it saves. */
export const NEW_TASK_MAX_LABEL_BYTES = 4096;

function labelBytes(labels: Record<string, string>): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(labels)) bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  return bytes;
}

@Injectable()
export class NewTasks {
  private readonly entries: GenerationCache<NewTask>;

  constructor(
    private readonly changes: ChangeGeneration,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.entries = new GenerationCache(changes, config.newTaskCacheEntries, { lazy: true });
  }

  /** Read before the task's row is written: the entry is kept only if nothing changed since. */
  generation(): number {
    return this.changes.current();
  }

  /** The task was committed: kept unless its labels are large. */
  created(entry: NewTask, generation: number): void {
    if (labelBytes(entry.task.labels) > NEW_TASK_MAX_LABEL_BYTES) return;
    this.entries.set(String(entry.task.id), entry, generation);
  }

  get(taskId: number): NewTask | undefined {
    return this.entries.get(String(taskId));
  }
}
