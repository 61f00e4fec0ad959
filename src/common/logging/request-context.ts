// Per-request values (the request id, the caller) that log lines pick up without threading them.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  requestId: string;
  userId?: number;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();
