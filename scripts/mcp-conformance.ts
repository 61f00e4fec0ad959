// The MCP project's own conformance suite (@modelcontextprotocol/conformance) against the built
// service: starts it on the embedded database in a temporary data folder (or on DATABASE_URL, which
// must name an empty database), publishes personal, group, nested-group and public skills, and
// runs each scenario of docs/mcp-skills.md#conformance through a small forwarding proxy that only
// adds the user's Authorization header (the suite cannot send one). Host and Origin pass through
// unchanged, so the DNS-rebinding scenario tests the service itself, with its default settings. Prints one line per scenario
// and exits 1 when any check failed or any scenario did not run.
//
//   npm run conformance              (builds first, as its pre script)
//   node dist/scripts/mcp-conformance.js [--keep] [scenario...]
//     --keep leaves the results folder in place; scenarios named run instead of the list below.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildCanonicalZip } from '../src/package/canonical-zip';
import { BENCH_ADMIN_KEY, startService } from './bench/service';

/** The protocol version the suite speaks, and the scenarios the service must pass with no failure. */
export const SPEC_VERSION = '2025-11-25';
export const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'dns-rebinding-protection',
  'sep-2640-skills-enumeration',
  'sep-2640-skills-manifest',
  'sep-2640-skills-directory',
];
const SCENARIO_TIMEOUT_MS = 60_000;

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

interface Outcome {
  scenario: string;
  checks: Check[];
  exitCode: number | null;
  output: string;
}

// Binary content for a file served as a base64 blob: the first bytes of a PDF and a few others.
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from([0xe2, 0xe3, 0xcf, 0xd3, 0x00, 0xff, 0x10])]);

/** The catalog: every scope, a subfolder in the first skill listed, and one name in two scopes. */
/** `scope`: `personal`, `public` or a group path. */
const SKILLS: Array<{
  scope: string;
  name: string;
  skillMd: string;
  files: Record<string, string | Buffer>;
}> = [
  {
    scope: 'personal',
    name: 'code-review',
    skillMd:
      '---\nname: code-review\ndescription: Review a change against the team checklist before it is merged.\n' +
      'license: MIT\nmetadata:\n  version: "1.2"\n---\n# Code review\n\nWork through references/checklist.md.\n',
    files: {
      'references/checklist.md': '# Checklist\n\n- tests\n- names\n',
      'references/examples/good-change.md': '# A good change\n',
    },
  },
  {
    scope: 'platform',
    name: 'deploy',
    skillMd: '---\nname: deploy\ndescription: Deploy a service with the platform runbook.\n---\n# Deploy\n',
    files: { 'scripts/deploy.sh': '#!/bin/sh\necho deploy\n', 'references/runbook.md': '# Runbook\n' },
  },
  {
    // Named like the subgroup below, with a folder named like the subgroup's skill: its file is
    // skill://platform/data/etl-pipeline/notes.md, the subgroup's skill skill://platform.data/etl-pipeline.
    scope: 'platform',
    name: 'data',
    skillMd: '---\nname: data\ndescription: Data conventions of the platform group.\n---\n# Data\n',
    files: { 'etl-pipeline/notes.md': '# Notes on the ETL pipeline\n' },
  },
  {
    scope: 'platform/data',
    name: 'etl-pipeline',
    skillMd: '---\nname: etl-pipeline\ndescription: Build a nightly ETL job from the template.\n---\n# ETL\n',
    files: { 'templates/job.yaml': 'schedule: nightly\n' },
  },
  {
    scope: 'public',
    name: 'pdf-forms',
    skillMd: '---\nname: pdf-forms\ndescription: Fill PDF forms from structured data.\n---\n# PDF forms\n',
    files: { 'assets/sample.pdf': PDF, 'scripts/fill.py': 'print("fill")\n' },
  },
  {
    // The same name as the personal skill: served at a different skill path.
    scope: 'public',
    name: 'code-review',
    skillMd: '---\nname: code-review\ndescription: The public code review guide.\n---\n# Code review\n',
    files: {},
  },
];

async function api<T>(base: string, key: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function publish(base: string, key: string, skill: (typeof SKILLS)[number]): Promise<void> {
  const files = Object.entries({ 'SKILL.md': skill.skillMd, ...skill.files })
    .map(([path, data]) => ({ path, mode: '644' as const, data: Buffer.isBuffer(data) ? data : Buffer.from(data) }))
    .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const form = new FormData();
  if (skill.scope === 'public') form.set('public', 'true');
  else if (skill.scope !== 'personal') form.set('namespace', skill.scope);
  form.set(
    'file',
    new Blob([new Uint8Array(buildCanonicalZip(skill.name, files))], { type: 'application/zip' }),
    'skill.zip',
  );
  const res = await fetch(`${base}/api/skills`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  if (res.status !== 201) throw new Error(`publishing ${skill.scope}/${skill.name}: ${res.status} ${await res.text()}`);
}

/** A user, the groups `platform` and `platform/data` they own, and the catalog; returns their key. */
async function seed(base: string): Promise<string> {
  const user = await api<{ api_key: string }>(base, BENCH_ADMIN_KEY, 'POST', '/users', {
    user_name: 'conformance',
    role: 'user',
  });
  for (const name of ['platform', 'platform/data']) await api(base, user.api_key, 'POST', '/groups', { name });
  for (const skill of SKILLS) await publish(base, skill.scope === 'public' ? BENCH_ADMIN_KEY : user.api_key, skill);
  return user.api_key;
}

/** Where the proxy forwards to and the key it adds, set once the service is up and seeded. */
interface Forwarding {
  port: number;
  key: string;
}

/** Forwards every request byte for byte to `to.port`, adding only `Authorization: Bearer <to.key>`. */
async function startProxy(to: Forwarding): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const headers: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (req.rawHeaders[i].toLowerCase() !== 'authorization') headers.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
    }
    headers.push('Authorization', `Bearer ${to.key}`);
    const upstream = httpRequest(
      { host: '127.0.0.1', port: to.port, method: req.method, path: req.url, headers, setHost: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  return { server, port };
}

function conformanceBin(): string {
  const manifest = require.resolve('@modelcontextprotocol/conformance/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), bin.conformance);
}

/** One scenario; its checks are read from the results folder the suite writes. */
function runScenario(url: string, scenario: string, resultsDir: string): Promise<Outcome> {
  const out = join(resultsDir, scenario);
  // Extension scenarios sit outside the spec's timeline: at a given --spec-version the suite
  // skips them (exit 0, no checks) unless --force; it then runs them at that version.
  const args = [conformanceBin(), 'server', '--url', url, '--scenario', scenario, '--spec-version', SPEC_VERSION];
  args.push('--force', '--timeout', String(SCENARIO_TIMEOUT_MS), '--output-dir', out);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    child.stdout.on('data', (c: Buffer) => output.push(c.toString()));
    child.stderr.on('data', (c: Buffer) => output.push(c.toString()));
    child.on('close', (exitCode) => {
      let checks: Check[] = [];
      try {
        for (const folder of readdirSync(out)) {
          checks = JSON.parse(readFileSync(join(out, folder, 'checks.json'), 'utf8')) as Check[];
        }
      } catch {
        checks = [];
      }
      resolve({ scenario, checks, exitCode, output: output.join('') });
    });
  });
}

function count(checks: Check[], status: Check['status']): number {
  return checks.filter((c) => c.status === status).length;
}

function report(outcomes: Outcome[]): boolean {
  const rows = outcomes.map((o) => {
    const failed = count(o.checks, 'FAILURE');
    const ran = o.checks.length > 0 && o.exitCode !== null;
    const verdict = !ran ? 'DID NOT RUN' : failed > 0 || o.exitCode !== 0 ? 'FAILED' : 'passed';
    return [
      o.scenario,
      verdict,
      String(count(o.checks, 'SUCCESS')),
      String(failed),
      String(count(o.checks, 'WARNING')),
      String(count(o.checks, 'SKIPPED')),
    ];
  });
  const head = ['scenario', 'result', 'passed', 'failed', 'warnings', 'skipped'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  console.log(`\nMCP conformance at protocol ${SPEC_VERSION}\n`);
  console.log(line(head));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
  let ok = true;
  for (const o of outcomes) {
    const notable = o.checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO');
    for (const c of notable)
      console.log(`  ${o.scenario}: ${c.status} ${c.id}${c.errorMessage ? `: ${c.errorMessage}` : ''}`);
    if (o.checks.length === 0 || o.exitCode !== 0 || count(o.checks, 'FAILURE') > 0) {
      ok = false;
      if (o.checks.length === 0) console.log(`  ${o.scenario} wrote no checks; its output:\n${o.output}`);
    }
  }
  return ok;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const keep = args.includes('--keep');
  const named = args.filter((a) => !a.startsWith('--'));
  const scenarios = named.length ? named : SCENARIOS;
  const work = mkdtempSync(join(tmpdir(), 'sr-conformance-'));
  const resultsDir = join(work, 'results');
  const forwarding: Forwarding = { port: 0, key: '' };
  const proxy = await startProxy(forwarding);
  const url = `http://127.0.0.1:${proxy.port}/api/mcp`;
  let ok: boolean;
  try {
    // The service runs with no MCP settings, as a default installation does: the suite's own
    // requests carry the Origin of the URL it is given (the proxy's, on loopback), which the
    // defaults allow. Settings inherited from this shell are dropped for the same reason.
    delete process.env.MCP_ALLOWED_HOSTS;
    delete process.env.MCP_ALLOWED_ORIGINS;
    const service = await startService(process.env.DATABASE_URL || undefined, join(work, 'data'));
    try {
      forwarding.port = Number(new URL(service.baseUrl).port);
      forwarding.key = await seed(service.baseUrl);
      const database = process.env.DATABASE_URL ? 'the database at DATABASE_URL' : 'the embedded database';
      console.log(`service ${service.baseUrl} on ${database}; the suite talks to ${url}`);
      const outcomes: Outcome[] = [];
      for (const scenario of scenarios) outcomes.push(await runScenario(url, scenario, resultsDir));
      ok = report(outcomes);
      if (keep) console.log(`\nresults kept in ${resultsDir}`);
    } finally {
      await service.stop();
    }
  } finally {
    proxy.server.close();
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
  process.exitCode = ok ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
