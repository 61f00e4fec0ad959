// A TCP proxy in front of PostgreSQL that counts what the service asks and reads: round trips (each
// Sync of the extended protocol, each simple Query), connections opened, the bytes the server sends,
// and how long the round trips took (from the message that ends one to the server's
// ReadyForQuery: the time its connection is held for it). The package-storage rows and the storm
// read "per download" figures from it.
import { connect, createServer, Server, Socket } from 'node:net';

export interface PgCounts {
  roundTrips: number;
  connections: number;
  bytesFromServer: number;
  /** Milliseconds from each round trip's last message to the server's answer that it is done. */
  roundTripMs: number;
}

export interface PgCounter {
  /** `databaseUrl` with the proxy's host and port. */
  url: string;
  counts(): PgCounts;
  close(): Promise<void>;
}

/** Splits a stream of typed messages (type byte, then a 4-byte length), calling `seen` with each type. */
function messages(seen: (type: string) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 5) {
      const length = pending.readUInt32BE(1);
      if (pending.length < 1 + length) return;
      seen(String.fromCharCode(pending[0]));
      pending = pending.subarray(1 + length);
    }
  };
}

/** Counts the frontend messages of one connection: the startup packet has no type byte. */
function frontendCounter(counts: PgCounts, sent: number[]): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  let started = false;
  return (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      if (!started) {
        if (pending.length < 8) return;
        const length = pending.readUInt32BE(0);
        if (pending.length < length) return;
        // An SSLRequest (80877103) is answered with one byte and followed by the real startup.
        if (pending.readUInt32BE(4) !== 80877103) started = true;
        pending = pending.subarray(length);
        continue;
      }
      if (pending.length < 5) return;
      const length = pending.readUInt32BE(1);
      if (pending.length < 1 + length) return;
      const type = String.fromCharCode(pending[0]);
      if (type === 'S' || type === 'Q') {
        counts.roundTrips++;
        sent.push(performance.now());
      }
      pending = pending.subarray(1 + length);
    }
  };
}

export async function startPgCounter(databaseUrl: string): Promise<PgCounter> {
  const target = new URL(databaseUrl);
  const counts: PgCounts = { roundTrips: 0, connections: 0, bytesFromServer: 0, roundTripMs: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    counts.connections++;
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    // When each round trip of this connection was sent, oldest first; a ReadyForQuery ends the oldest.
    const sent: number[] = [];
    const count = frontendCounter(counts, sent);
    let ready = 0;
    const answers = messages((type) => {
      // The first ReadyForQuery ends the startup, not a round trip.
      if (type === 'Z' && ready++ > 0 && sent.length) counts.roundTripMs += performance.now() - sent.shift()!;
    });
    client.on('data', (chunk: Buffer) => {
      count(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      counts.bytesFromServer += chunk.length;
      answers(chunk);
      client.write(chunk);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    counts: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
