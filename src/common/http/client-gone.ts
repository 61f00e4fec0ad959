// A signal for work that only its client waits for: it aborts when the client's connection closes
// before the answer was sent, so the work can stop instead of running to its end for nobody.
import type { Response } from 'express';

export function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
