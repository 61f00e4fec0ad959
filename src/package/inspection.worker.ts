// An inspection worker: takes an upload and the limits, answers with the inspection.
import { parentPort } from 'node:worker_threads';
import type { PackageLimits } from './limits';
import { inspectPackage } from './inspect-package';

export interface InspectionRequest {
  id: number;
  bytes: Uint8Array;
  limits: PackageLimits;
}

// Jobs are sent only once the worker has loaded, so start-up never counts against a deadline.
parentPort?.postMessage({ ready: true });

parentPort?.on('message', ({ id, bytes, limits }: InspectionRequest) => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    parentPort!.postMessage({ id, inspection: inspectPackage(buffer, limits) });
  } catch (err) {
    parentPort!.postMessage({ id, failure: err instanceof Error ? err.message : String(err) });
  }
});
