// Serves one PGlite instance to many PostgreSQL clients on a loopback port. PGlite is a single
// session, so each client's work is run whole: a batch of extended-protocol messages up to its
// Sync (or a simple Query) runs without another client's messages in between, and while a client
// holds an open transaction only that client's batches run. (Interleaving single messages, as a
// per-message queue does, lets two clients overwrite each other's unnamed statement and portal.)
// Named prepared statements live in that one session too, so a name is prepared once for every
// client: a client's Parse of a name already prepared with the same text is answered here
// (ParseComplete) instead of failing as a duplicate.
import { createServer, Server, Socket } from 'node:net';

/** The part of PGlite this server uses. */
export interface ProtocolDatabase {
  execProtocolRawStream(message: Uint8Array, options: { onRawData: (chunk: Uint8Array) => void }): Promise<void>;
  isInTransaction(): boolean;
  exec(query: string): Promise<unknown>;
  runExclusive<T>(work: () => Promise<T>): Promise<T>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** Message types that end a batch: Sync, simple Query, Flush. */
const BATCH_END = new Set(['S', 'Q', 'H'].map((c) => c.charCodeAt(0)));
const TERMINATE = 'X'.charCodeAt(0);
const PARSE = 'P'.charCodeAt(0);
const QUERY = 'Q'.charCodeAt(0);
const PARSE_COMPLETE = Buffer.from([0x31, 0, 0, 0, 4]);
/** Statements that drop prepared statements of the session. */
const DROPS_PREPARED = /\b(DEALLOCATE|DISCARD)\b/i;

interface Client {
  socket: Socket;
  buffer: Buffer;
  started: boolean;
  pending: Buffer[];
  /** The pending batch began with a Parse of a statement the session already has (not sent on). */
  parsed: boolean;
  /** A named statement the pending batch prepares first: recorded once its ParseComplete comes. */
  prepares?: { name: string; text: string };
  /** The pending batch may drop prepared statements. */
  drops: boolean;
  closed: boolean;
}

interface Work {
  client: Client;
  data: Uint8Array;
  parsed?: boolean;
  prepares?: { name: string; text: string };
  drops?: boolean;
}

/** The NUL-terminated string at `at`, and where the next field starts. */
function cString(buf: Buffer, at: number): [string, number] {
  const end = buf.indexOf(0, at);
  return end < 0 ? ['', buf.length] : [buf.toString('utf8', at, end), end + 1];
}

export class EmbeddedSocketServer {
  private readonly server: Server;
  private readonly clients = new Set<Client>();
  private queue: Work[] = [];
  private running = false;
  /** The client whose transaction is open: only its work may run until it ends. */
  private owner: Client | null = null;
  /** Named statements prepared in the session, by name: their text. */
  private readonly prepared = new Map<string, string>();

  constructor(
    private readonly db: ProtocolDatabase,
    private readonly maxConnections: number,
  ) {
    this.server = createServer((socket) => this.accept(socket));
    this.server.maxConnections = maxConnections;
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        const address = this.server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  async close(): Promise<void> {
    for (const client of this.clients) client.socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    while (this.running) await new Promise((r) => setTimeout(r, 5));
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    const client: Client = {
      socket,
      buffer: Buffer.alloc(0),
      started: false,
      pending: [],
      parsed: false,
      drops: false,
      closed: false,
    };
    this.clients.add(client);
    socket.on('data', (chunk: Buffer) => {
      client.buffer = client.buffer.length ? Buffer.concat([client.buffer, chunk]) : chunk;
      this.parse(client);
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.drop(client));
  }

  private parse(client: Client): void {
    for (;;) {
      const buf = client.buffer;
      if (!client.started) {
        if (buf.length < 8) return;
        const length = buf.readInt32BE(0);
        if (buf.length < length) return;
        const code = buf.readInt32BE(4);
        client.buffer = buf.subarray(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          client.socket.write('N');
        } else if (code === CANCEL_REQUEST) {
          client.socket.destroy();
          return;
        } else {
          client.started = true;
          this.enqueue(client, buf.subarray(0, length));
        }
        continue;
      }
      if (buf.length < 5) return;
      const total = 1 + buf.readInt32BE(1);
      if (buf.length < total) return;
      const type = buf[0];
      const message = buf.subarray(0, total);
      client.buffer = buf.subarray(total);
      if (type === TERMINATE) {
        client.socket.end();
        return;
      }
      if (!this.note(client, type, message)) client.pending.push(message);
      if (BATCH_END.has(type)) {
        const { parsed, prepares, drops } = client;
        this.queue.push({ client, data: Buffer.concat(client.pending), parsed, prepares, drops });
        client.pending = [];
        client.parsed = false;
        client.prepares = undefined;
        client.drops = false;
        void this.run();
      }
    }
  }

  /**
   * Notes what a message does to the session's named statements; false when it is answered here
   * (a batch's first message, a Parse of a name prepared with the same text) and not sent on.
   */
  private note(client: Client, type: number, message: Buffer): boolean {
    if (type === QUERY && DROPS_PREPARED.test(cString(message, 5)[0])) client.drops = true;
    if (type !== PARSE || client.pending.length > 0 || client.parsed) return false;
    const [name, next] = cString(message, 5);
    if (!name) return false;
    const [text] = cString(message, next);
    if (this.prepared.get(name) === text) {
      client.parsed = true;
      return true;
    }
    client.prepares = { name, text };
    return false;
  }

  private enqueue(client: Client, data: Uint8Array): void {
    this.queue.push({ client, data });
    void this.run();
  }

  private drop(client: Client): void {
    if (client.closed) return;
    client.closed = true;
    this.clients.delete(client);
    this.queue = this.queue.filter((w) => w.client !== client);
    if (this.owner === client) {
      // Its transaction would block everyone: end it, then let the others run.
      this.owner = null;
      void this.db
        .exec('ROLLBACK')
        .catch(() => undefined)
        .then(() => this.run());
    }
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const index = this.owner ? this.queue.findIndex((w) => w.client === this.owner) : this.queue.length ? 0 : -1;
        if (index < 0) return;
        const [work] = this.queue.splice(index, 1);
        if (work.client.closed) continue;
        const socket = work.client.socket;
        if (work.parsed && !socket.destroyed) socket.write(PARSE_COMPLETE);
        let first = true;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(work.data, {
              onRawData: (chunk) => {
                if (first && work.prepares && chunk[0] === PARSE_COMPLETE[0]) {
                  this.prepared.set(work.prepares.name, work.prepares.text);
                }
                first = false;
                if (!socket.destroyed) socket.write(Buffer.from(chunk));
              },
            }),
          );
        } catch {
          socket.destroy();
        }
        if (work.drops) this.prepared.clear();
        this.owner = this.db.isInTransaction() && !work.client.closed ? work.client : null;
      }
    } finally {
      this.running = false;
    }
  }
}
