// The embedded PostgreSQL's own thread: opens PGlite (making the cluster from the template when the
// folder is new) and serves it on a loopback port, so the database's work never waits for the
// service's JavaScript, nor the service's for the database's. At boot it starts while the service
// loads its modules. Started by startEmbeddedPostgres; speaks to it by messages only.
import { parentPort, workerData } from 'node:worker_threads';
import { EmbeddedDb, EmbeddedWorkerData, openPGlite, ToWorker, FromWorker } from './embedded-postgres';
import { EmbeddedSocketServer } from './embedded-socket-server';

const port = parentPort!;
const send = (message: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

async function serve(data: EmbeddedWorkerData): Promise<void> {
  let db: EmbeddedDb | undefined;
  try {
    const opened = await openPGlite(data.pgdata, data.useTemplate);
    db = opened.db;
    const server = new EmbeddedSocketServer(db, data.maxConnections);
    const listening = await server.listen('127.0.0.1', data.port);
    const open = db;
    port.on('message', (message: ToWorker) => {
      void (async () => {
        if (message.type === 'dump') {
          const dump = Buffer.from(await (await open.dumpDataDir('gzip')).arrayBuffer());
          const bytes = dump.buffer.slice(dump.byteOffset, dump.byteOffset + dump.length);
          return send({ type: 'dump', data: bytes }, [bytes]);
        }
        await server.close();
        await open.close();
        send({ type: 'stopped' });
        port.close();
      })().catch((err: unknown) => send({ type: 'failed', message: (err as Error)?.stack ?? String(err) }));
    });
    send({ type: 'ready', port: listening, fromTemplate: opened.fromTemplate });
  } catch (err) {
    await db?.close().catch(() => undefined);
    send({ type: 'failed', message: (err as Error)?.stack ?? String(err) });
    port.close();
  }
}

void serve(workerData as EmbeddedWorkerData);
