// The package-storage rows of `npm run bench` (docs/benchmarks.md#package-storage), also runnable
// alone: `node dist/scripts/bench/package-storage.js` (DATABASE_URL: on that server; else embedded).
// - downloads per store: a task token downloading the 8 skills of its task, autocannon; req/s, the
//   service's CPU per download (/proc), and the round trips and bytes it read from PostgreSQL per
//   download (a counting proxy between the service and the database);
// - signing a download URL: the SDK's getSignedUrl against the signer the s3 store calls;
// - a single file: recorded offsets (one ranged read of the zip) against one object per file;
// - the embedded database's RSS after 1,000 packages of 100 KB, with the database and fs stores;
// - the sandbox start storm (100 sandboxes, 8 downloads at a time each) on the fs and s3 stores.
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../../src/config/app-config';
import { buildCanonicalZip } from '../../src/package/canonical-zip';
import { fileOffsets } from '../../src/package/file-offsets';
import { inspectPackage } from '../../src/package/inspect-package';
import { openStoredFile } from '../../src/package/zip-random-access';
import { packageKey } from '../../src/storage/blob-keys';
import { S3BlobStore } from '../../src/storage/s3-blob-store';
import { startS3Server } from '../../test/support/s3-server';
import { DatabaseHost, openDatabaseHost } from './database';
import { downloadStorm, StormResult } from './download-storm';
import { clean, Endpoint, LoadSettings, measure, percentile, perSecond } from './load';
import { cpuSeconds, publishPackages, rssMiB, sandboxes } from './packages';
import { startPgCounter } from './pg-counter';
import { BENCH_ADMIN_KEY, startService } from './service';
import { runAlone } from './alone';

type Progress = (line: string) => void;

const DOWNLOAD_PACKAGES = 80;
const DOWNLOAD_TASKS = 10;
const PER_TASK = 8;
const KIB = 1024;

interface DownloadRow {
  label: string;
  endpoint: Endpoint;
  pid: number;
  counter: Awaited<ReturnType<typeof startPgCounter>>;
  cpu: number;
  roundTrips: number;
  bytes: number;
}

/** A service on a fresh database (through the counting proxy) with `env`, and the download endpoint over its tokens. */
async function downloadRows(
  host: DatabaseHost,
  dataDir: string,
  s3env: Record<string, string>,
  cleanup: Array<() => Promise<void>>,
  progress: Progress,
): Promise<DownloadRow[]> {
  const rows: DownloadRow[] = [];
  const kinds: Array<[string, Record<string, string>, string]> = [
    ['database', { BLOB_STORE: 'database' }, ''],
    ['fs', { BLOB_STORE: 'fs' }, ''],
    ['s3 (302)', { BLOB_STORE: 's3', ...s3env, S3_PREFIX: 'bench-302/' }, ''],
    ['s3, ?redirect=false', { BLOB_STORE: 's3', ...s3env, S3_PREFIX: 'bench-stream/' }, '?redirect=false'],
  ];
  for (const [label, env, query] of kinds) {
    const db = await host.create(`pkg_${rows.length}`);
    cleanup.push(db.drop);
    const counter = await startPgCounter(db.url);
    cleanup.push(() => counter.close());
    const dir = join(dataDir, `downloads-${rows.length}`);
    await mkdir(dir);
    const service = await startService(counter.url, dir, env);
    cleanup.push(service.stop);
    const published = await publishPackages(service.baseUrl, BENCH_ADMIN_KEY, DOWNLOAD_PACKAGES, 100 * KIB, 'dl');
    const boxes = await sandboxes(service.baseUrl, BENCH_ADMIN_KEY, published, DOWNLOAD_TASKS, PER_TASK);
    progress(`downloads: ${label}: ${published.length} packages of 100 KiB, ${boxes.length} tasks of ${PER_TASK}`);
    const row: DownloadRow = {
      label,
      pid: service.pid,
      counter,
      cpu: 0,
      roundTrips: 0,
      bytes: 0,
      endpoint: {
        label: `download, ${label}`,
        baseUrl: service.baseUrl,
        expect: label === 's3 (302)' ? 302 : 200,
        requests: boxes.flatMap((box) =>
          box.skillIds.map((id) => ({
            method: 'GET',
            path: `/api/skills/${id}/download${query}`,
            headers: { authorization: `Bearer ${box.token}` },
          })),
        ),
      },
    };
    row.endpoint.around = () => {
      const cpu = cpuSeconds(row.pid);
      const counts = counter.counts();
      return Promise.resolve(() => {
        const now = counter.counts();
        row.cpu += cpuSeconds(row.pid) - cpu;
        row.roundTrips += now.roundTrips - counts.roundTrips;
        row.bytes += now.bytesFromServer - counts.bytesFromServer;
        return Promise.resolve();
      });
    };
    rows.push(row);
  }
  return rows;
}

/** CPU per call of the two ways to sign a download URL, in this process. */
async function signing(s3env: Record<string, string>): Promise<string[]> {
  const settings = loadConfig({ ...s3env, BLOB_STORE: 's3' }).storage.s3!;
  const store = new S3BlobStore(settings, { connectMs: 1_000, requestMs: 1_000 });
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: settings.accessKeyId!, secretAccessKey: settings.secretAccessKey! },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const key = packageKey(`sha256:${'ab'.repeat(32)}`);
  const headers = {
    contentType: 'application/zip',
    contentDisposition: 'attachment; filename="pdf-tools-3.zip"',
    cacheControl: 'private, max-age=31536000, immutable',
  };
  const sdk = () =>
    getSignedUrl(
      client,
      new GetObjectCommand({
        Bucket: settings.bucket,
        Key: key,
        ResponseContentType: headers.contentType,
        ResponseContentDisposition: headers.contentDisposition,
        ResponseCacheControl: headers.cacheControl,
      }),
      { expiresIn: 60 },
    );
  const ours = () => store.presign(key, headers, 60);
  const time = async (work: () => Promise<string>, n: number): Promise<number> => {
    for (let i = 0; i < 500; i++) await work();
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) await work();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / n;
  };
  const sdkMs = await time(sdk, 3_000);
  const oursMs = await time(ours, 20_000);
  client.destroy();
  await store.close();
  return [
    `signing a download URL, CPU per call: getSignedUrl ${sdkMs.toFixed(3)} ms; the s3 store's signer ` +
      `(S3RequestPresigner on a request built once per call) ${oursMs.toFixed(3)} ms`,
  ];
}

/** One file of a package: a ranged read of its offsets in the zip, against one object per file. */
async function singleFile(s3env: Record<string, string>): Promise<string[]> {
  const settings = loadConfig({ ...s3env, BLOB_STORE: 's3', S3_PREFIX: 'layout/' }).storage.s3!;
  const store = new S3BlobStore(settings, { connectMs: 1_000, requestMs: 5_000 });
  const files = Array.from({ length: 40 }, (_, i) => ({
    path: `refs/${String(i).padStart(2, '0')}.md`,
    mode: '644' as const,
    data: Buffer.from(`# Reference ${i}\n${'Some text of the skill, as references hold. '.repeat(120)}\n`),
  }));
  files.push({ path: 'SKILL.md', mode: '644', data: Buffer.from('---\nname: layout\ndescription: d\n---\n# L\n') });
  const zip = buildCanonicalZip(
    'layout',
    files.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path))),
  );
  const inspection = inspectPackage(zip, loadConfig({}).packageLimits);
  const manifest = inspection.files;
  const offsets = fileOffsets(inspection.canonical!, 'layout', manifest)!;
  const sha = (d: Buffer) => createHash('sha256').update(d).digest('hex');
  const collect = async (s: Readable) => {
    const chunks: Buffer[] = [];
    for await (const c of s) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  // Publish: the zip alone, against the zip and one object per file (each a HEAD and a PUT).
  let t0 = performance.now();
  await store.putIfAbsent(packageKey(inspection.contentHash!), inspection.canonical!);
  const publishZip = performance.now() - t0;
  t0 = performance.now();
  await store.putIfAbsent(packageKey(`sha256:${sha(Buffer.from('other'))}`), inspection.canonical!);
  for (const file of files)
    await store.putIfAbsent(`files/sha256/${sha(file.data).slice(0, 2)}/${sha(file.data)}`, file.data);
  const publishPerFile = performance.now() - t0;
  const reads = 400;
  const read = async (perFile: boolean): Promise<{ ms: number; cpu: number }> => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < reads; i++) {
      const index = i % manifest.length;
      const file = manifest[index];
      if (perFile) {
        const data = await collect(
          (await store.getRange(`files/sha256/${file.sha256.slice(0, 2)}/${file.sha256}`, 0, file.size))!,
        );
        if (sha(data) !== file.sha256) throw new Error('per-file object damaged');
      } else {
        const [at, length] = offsets[index];
        const source = (await store.getRange(packageKey(inspection.contentHash!), at, length))!;
        await collect(openStoredFile(source, `layout/${file.path}`, length, file));
      }
    }
    const used = process.cpuUsage(cpu);
    return { ms: (performance.now() - start) / reads, cpu: (used.user + used.system) / 1000 / reads };
  };
  await read(false);
  await read(true);
  const byOffsets = await read(false);
  const byObjects = await read(true);
  await store.close();
  const stored = inspection.canonical!.length;
  const expanded = files.reduce((n, f) => n + f.data.length, 0);
  return [
    `single file of a ${files.length}-file package (zip ${(stored / KIB).toFixed(1)} KiB, files ${(expanded / KIB).toFixed(1)} KiB expanded), s3rver on loopback:`,
    `  recorded offsets: publish 1 object (${publishZip.toFixed(1)} ms), a read ${byOffsets.ms.toFixed(2)} ms, ` +
      `${byOffsets.cpu.toFixed(3)} ms CPU (one ranged GET of the compressed bytes, inflated)`,
    `  one object per file: publish ${files.length + 1} objects (${publishPerFile.toFixed(1)} ms, ${(expanded / KIB).toFixed(1)} KiB more stored), ` +
      `a read ${byObjects.ms.toFixed(2)} ms, ${byObjects.cpu.toFixed(3)} ms CPU (one GET of the file)`,
  ];
}

/** The embedded service's RSS after publishing 1,000 packages of 100 KiB and downloading each once. */
async function embeddedRss(dataDir: string, store: 'database' | 'fs', progress: Progress): Promise<string> {
  const dir = join(dataDir, `rss-${store}`);
  await mkdir(dir);
  const service = await startService(undefined, dir, { BLOB_STORE: store });
  try {
    const before = rssMiB(service.pid);
    const published = await publishPackages(service.baseUrl, BENCH_ADMIN_KEY, 1_000, 100 * KIB, 'rss', 2);
    const afterPublish = rssMiB(service.pid);
    for (const p of published) {
      const res = await fetch(`${service.baseUrl}/api/skills/${p.id}/download`, {
        headers: { 'x-api-key': BENCH_ADMIN_KEY },
      });
      await res.arrayBuffer();
    }
    const afterDownloads = rssMiB(service.pid);
    progress(
      `embedded RSS, ${store}: ${before.toFixed(0)} -> ${afterPublish.toFixed(0)} -> ${afterDownloads.toFixed(0)} MiB`,
    );
    return `embedded database, BLOB_STORE=${store}: RSS ${before.toFixed(0)} MiB at boot, ${afterPublish.toFixed(0)} MiB after publishing 1,000 packages of 100 KiB, ${afterDownloads.toFixed(0)} MiB after downloading each once`;
  } finally {
    await service.stop();
  }
}

async function storm(dataDir: string, env: Record<string, string>, label: string): Promise<string> {
  const dir = join(dataDir, `storm-${label.replace(/\W+/g, '-')}`);
  await mkdir(dir);
  const service = await startService(undefined, dir, env);
  try {
    const published = await publishPackages(service.baseUrl, BENCH_ADMIN_KEY, 100, 100 * KIB, 'storm');
    const boxes = await sandboxes(service.baseUrl, BENCH_ADMIN_KEY, published, 100, PER_TASK);
    const r: StormResult = await downloadStorm({
      baseUrl: service.baseUrl,
      adminKey: BENCH_ADMIN_KEY,
      pid: service.pid,
      sandboxes: boxes,
      parallel: PER_TASK,
    });
    const answered = Object.entries(r.statuses)
      .map(([status, n]) => `${n}x ${status}`)
      .join(', ');
    return (
      `storm, embedded, ${label}: ${r.downloads} downloads in ${r.seconds.toFixed(2)} s (${answered}); ` +
      `p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms; pool waiting at most ${r.poolWaitingMax}, ` +
      `in use at most ${r.poolInUseMax}; ${r.cpuMsPerDownload.toFixed(2)} ms service CPU per download`
    );
  } finally {
    await service.stop();
  }
}

export async function packageStorageRows(
  host: DatabaseHost,
  settings: LoadSettings,
  progress: Progress,
): Promise<string[]> {
  const cleanup: Array<() => Promise<void>> = [];
  const dataDir = await mkdtemp(join(tmpdir(), 'sr-bench-pkg-'));
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
  const s3 = await startS3Server();
  cleanup.push(() => s3.close());
  try {
    const s3env = s3.env();
    const rows = await downloadRows(host, dataDir, s3env, cleanup, progress);
    const results = await measure(
      rows.map((r) => r.endpoint),
      settings,
      progress,
    );
    const lines = [
      `package storage: ${host.kind}; downloads by task tokens (${DOWNLOAD_TASKS} tasks x ${PER_TASK} skills of 100 KiB), ` +
        `${settings.connections} connections; the s3 store is s3rver on loopback`,
      '',
      '| row | req/s | p99 ms | service CPU per download | PostgreSQL round trips per download | bytes from PostgreSQL per download | answers |',
      '|---|---:|---:|---:|---:|---:|---|',
    ];
    for (const [i, m] of results.entries()) {
      const row = rows[i];
      const n = m.responses || 1;
      lines.push(
        `| ${m.endpoint.label} | ${perSecond(m).toFixed(0)} | ${percentile(m, 0.99).toFixed(1)} | ` +
          `${((row.cpu * 1000) / n).toFixed(3)} ms | ${(row.roundTrips / n).toFixed(2)} | ` +
          `${Math.round(row.bytes / n).toLocaleString('en-US')} | ${clean(m) ? `all ${m.endpoint.expect}` : [...m.statuses].map(([s, c]) => `${c}x ${s}`).join(', ')} |`,
      );
    }
    for (const step of cleanup.splice(2).reverse()) await step();
    lines.push('', ...(await signing(s3env)), '', ...(await singleFile(s3env)), '');
    progress('embedded RSS with the database store');
    lines.push(await embeddedRss(dataDir, 'database', progress));
    progress('embedded RSS with the fs store');
    lines.push(await embeddedRss(dataDir, 'fs', progress), '');
    progress('storms');
    lines.push(await storm(dataDir, { BLOB_STORE: 'fs' }, 'fs'));
    lines.push(await storm(dataDir, { BLOB_STORE: 's3', ...s3env, S3_PREFIX: 'storm/' }, 's3 (302, not followed)'));
    return lines;
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  }
}

runAlone(module, async () => {
  const settings: LoadSettings = {
    connections: 10,
    seconds: Number(process.env.BENCH_SECONDS ?? 10),
    warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2),
    roundSeconds: Number(process.env.BENCH_ROUND_SECONDS ?? 2),
  };
  const host = await openDatabaseHost(process.env.DATABASE_URL?.trim() || undefined);
  const lines = await packageStorageRows(host, settings, (line) => process.stderr.write(`bench: ${line}\n`));
  process.stdout.write(lines.join('\n') + '\n');
});
