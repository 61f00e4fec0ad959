// Long computations written as generators (each `yield` ends a slice) share the event loop through
// one queue: in each turn of the loop the queue runs slices, one computation after another, until
// its time for the turn is spent, and then lets every other callback in. However many
// computations are in flight, a turn spends at most that time (plus the one slice that crosses
// it) on them, so `/health/live` and every other request keep being answered meanwhile.
import { setImmediate } from 'node:timers';

interface Job {
  steps: Generator<void, unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export class SharedTurns {
  private readonly queue: Job[] = [];
  private scheduled = false;

  /** `perTurnMs`: the time all computations together may take in one turn of the loop. */
  constructor(private readonly perTurnMs: number) {}

  /** Runs `steps` to its end, its first slice in a later turn of the loop, and returns its value. */
  run<T>(steps: Generator<void, T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ steps, resolve, reject });
      this.schedule();
    });
  }

  /** How many computations are in flight. */
  get pending(): number {
    return this.queue.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.turn());
  }

  private turn(): void {
    this.scheduled = false;
    const until = performance.now() + this.perTurnMs;
    do {
      const job = this.queue.shift()!;
      let next: IteratorResult<void, unknown>;
      try {
        next = job.steps.next();
      } catch (error) {
        job.reject(error);
        continue;
      }
      if (next.done) {
        // What the caller does with the value (an answer to send) runs in this turn: one per turn.
        job.resolve(next.value);
        break;
      }
      this.queue.push(job);
    } while (this.queue.length > 0 && performance.now() < until);
    if (this.queue.length > 0) this.schedule();
  }
}
