// A fixed pool of worker threads for package inspection, so no upload, however crafted, holds the
// HTTP event loop: each package has a deadline, past which its worker is replaced. Admission is
// bounded: past `maxInFlight` packages waiting or running, `inspect` refuses at once.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PackageLimits } from './limits';
import { emptyInspection, type PackageInspection } from './inspect-package';
import { problem } from './problem';

export interface InspectionPoolOptions {
  workers: number;
  maxInFlight: number;
  deadlineMs: number;
}

export class InspectionPoolFullError extends Error {
  constructor() {
    super('Too many packages are being inspected; try again shortly');
  }
}

interface Job {
  id: number;
  bytes: Buffer;
  limits: PackageLimits;
  resolve(inspection: PackageInspection): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

/** The compiled worker: next to this file when running built, in dist/ when running from sources. */
function workerFile(): string {
  const built = join(__dirname, 'inspection.worker.js');
  if (existsSync(built)) return built;
  return join(__dirname, '..', '..', 'dist', 'src', 'package', 'inspection.worker.js');
}

export class InspectionPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private inFlight = 0;
  private nextId = 1;
  private closed = false;
  private readonly file = workerFile();

  /** Workers start with the first packages, not at boot, so a service that takes no upload pays nothing. */
  constructor(private readonly options: InspectionPoolOptions) {}

  /** Rejects with InspectionPoolFullError when `maxInFlight` packages are already admitted. */
  inspect(bytes: Buffer, limits: PackageLimits): Promise<PackageInspection> {
    if (this.closed) return Promise.reject(new Error('The inspection pool is closed'));
    if (this.inFlight >= this.options.maxInFlight) return Promise.reject(new InspectionPoolFullError());
    this.inFlight++;
    return new Promise<PackageInspection>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, bytes, limits, resolve, reject });
      this.dispatch();
    }).finally(() => {
      this.inFlight--;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('The inspection pool is closed'));
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(this.file);
    const slot: Slot = { worker, ready: false };
    worker.unref();
    worker.on('message', (message: { ready?: true; id: number; inspection?: PackageInspection; failure?: string }) => {
      if (message.ready) {
        slot.ready = true;
        this.dispatch();
        return;
      }
      const job = slot.job;
      if (!job || job.id !== message.id) return;
      this.finish(slot);
      if (message.inspection) job.resolve(revive(message.inspection));
      else job.reject(new Error(`package inspection failed: ${message.failure}`));
    });
    worker.on('error', (err) => this.replace(slot, err));
    worker.on('exit', () => {
      if (!this.closed && this.slots.includes(slot)) this.replace(slot, new Error('an inspection worker exited'));
    });
    return slot;
  }

  private dispatch(): void {
    const idle = this.slots.filter((slot) => !slot.job).length;
    const wanted = Math.min(this.options.workers, this.slots.length + Math.max(0, this.queue.length - idle));
    while (!this.closed && this.slots.length < wanted) this.slots.push(this.spawn());
    for (const slot of this.slots) {
      if (slot.job || !slot.ready) continue;
      const job = this.queue.shift();
      if (!job) return;
      slot.job = job;
      slot.timer = setTimeout(() => this.timeOut(slot), this.options.deadlineMs);
      slot.worker.postMessage({ id: job.id, bytes: job.bytes, limits: job.limits });
    }
  }

  private finish(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
    this.dispatch();
  }

  /** A package past its deadline is answered as invalid, and its worker replaced. */
  private timeOut(slot: Slot): void {
    const job = slot.job;
    if (!job) return;
    this.retire(slot);
    job.resolve(overtime(job.bytes.length, this.options.deadlineMs));
  }

  private replace(slot: Slot, err: Error): void {
    const job = slot.job;
    this.retire(slot);
    job?.reject(err);
  }

  private retire(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.job = undefined;
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    slot.worker.removeAllListeners();
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
    if (!this.closed) this.dispatch();
  }
}

/** Buffers arrive from a worker as plain Uint8Arrays. */
function revive(inspection: PackageInspection): PackageInspection {
  const canonical = inspection.canonical as Uint8Array | null;
  return {
    ...inspection,
    canonical: canonical ? Buffer.from(canonical.buffer, canonical.byteOffset, canonical.byteLength) : null,
  };
}

function overtime(uploadSize: number, deadlineMs: number): PackageInspection {
  const inspection = emptyInspection(uploadSize);
  inspection.errors.push(problem('ZIP_INVALID', `The package could not be inspected within ${deadlineMs} ms.`));
  return inspection;
}
