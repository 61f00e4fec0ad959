// One sandbox of the raw transfer (docs/sandbox-client.md#start-storm): the least a sandbox can do
// to get its packages, in the same runtime as the client: fetch each URL from the static server, 8
// at a time over keep-alive (as the client), and write the bytes to DIR. No resolution, no check,
// no unpacking. `node dist/scripts/bench/storm-raw-fetch.js DIR URL...` prints `{requests, bytes}`.
import { mkdir, writeFile } from 'node:fs/promises';
import { Agent, get } from 'node:http';
import { join } from 'node:path';

const [dir, ...urls] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

function fetchBytes(url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`${url}: ${res.statusCode}`));
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks)));
      res.on('error', reject);
    }).on('error', reject);
  });
}

async function main(): Promise<void> {
  await mkdir(dir, { recursive: true });
  let next = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: Math.min(8, urls.length) }, async () => {
      while (next < urls.length) {
        const index = next++;
        const data = await fetchBytes(urls[index]);
        bytes += data.length;
        await writeFile(join(dir, `${index}.zip`), data);
      }
    }),
  );
  agent.destroy();
  process.stdout.write(`${JSON.stringify({ requests: urls.length, bytes })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
});
