// The part of autocannon 9 the benchmark uses (the package ships no types).
declare module 'autocannon' {
  import { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      /** Called before each send: the request as sent. */
      setupRequest?: (request: Request) => Request;
    }

    interface Client extends EventEmitter {
      setRequests(requests: Request[]): void;
    }

    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      timeout?: number;
      requests?: Request[];
      setupClient?: (client: Client) => void;
    }

    interface Histogram {
      average: number;
      p50: number;
      p99: number;
    }

    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      latency: Histogram;
      requests: Histogram;
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      stop(): void;
      on(event: 'response', listener: (client: Client, status: number, bytes: number, ms: number) => void): this;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;

  export = autocannon;
}
