// The raw transfer's file server (docs/sandbox-client.md#start-storm): a plain static server on
// loopback for the storm's package files, run as its own process as a CDN or nginx would be.
// `node dist/scripts/bench/storm-static-server.js DIR` prints `{"port": N}` once it listens.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';

const root = process.argv[2];
if (!root) throw new Error('usage: storm-static-server DIR');

const server = createServer((req, res) => {
  const name = /^\/p\/([a-z0-9-]{1,80}\.zip)$/.exec(req.url ?? '')?.[1];
  if (!name) {
    res.writeHead(404).end();
    return;
  }
  readFile(join(root, name)).then(
    (data) => {
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': String(data.length) });
      res.end(data);
    },
    () => res.writeHead(404).end(),
  );
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
