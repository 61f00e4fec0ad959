// Packages and sandboxes for the package-storage rows and the download storm, made through the
// HTTP API as a user would (so the same seeding runs against any release of the service): skills
// whose canonical zip is about `bytes` long, and tasks whose team's ghost selects some of them,
// each with a task token, as a sandbox gets one.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buildCanonicalZip } from '../../src/package/canonical-zip';

export interface PublishedPackage {
  id: number;
  name: string;
  contentHash: string;
}

export interface Sandbox {
  taskId: number;
  token: string;
  skillIds: number[];
}

async function call(baseUrl: string, key: string, path: string, body: object): Promise<{ id: number; token?: string }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: number; token?: string };
}

/** A package of about `bytes` (one incompressible file beside SKILL.md). */
export function packageOf(name: string, bytes: number): Buffer {
  return buildCanonicalZip(name, [
    {
      path: 'SKILL.md',
      mode: '644',
      data: Buffer.from(`---\nname: ${name}\ndescription: Bench package ${name}.\n---\n# ${name}\n`),
    },
    { path: 'data.bin', mode: '644', data: randomBytes(Math.max(0, bytes - 400)) },
  ]);
}

export async function publishPackages(
  baseUrl: string,
  key: string,
  count: number,
  bytes: number,
  prefix = 'pkg',
  concurrency = 4,
): Promise<PublishedPackage[]> {
  const out: PublishedPackage[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const name = `${prefix}-${String(i).padStart(4, '0')}`;
      const form = new FormData();
      form.set('file', new Blob([packageOf(name, bytes)]), `${name}.zip`);
      const res = await fetch(`${baseUrl}/api/skills`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
      if (res.status !== 201) throw new Error(`publishing ${name}: ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { id: number; latest_version: { content_hash: string } };
      out[i] = { id: body.id, name, contentHash: body.latest_version.content_hash };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

/** `count` tasks, each on a team whose ghost selects `perTask` of `packages` (in turn), each with a token. */
export async function sandboxes(
  baseUrl: string,
  key: string,
  packages: PublishedPackage[],
  count: number,
  perTask: number,
  prefix = 'sandbox',
): Promise<Sandbox[]> {
  const out: Sandbox[] = [];
  for (let i = 0; i < count; i++) {
    const picked = Array.from({ length: perTask }, (_, k) => packages[(i * perTask + k) % packages.length]);
    const name = `${prefix}-${i}`;
    const ghost = await call(baseUrl, key, '/api/ghosts', { name, skills: picked.map((p) => p.name) });
    const bot = await call(baseUrl, key, '/api/bots', { name, ghost_id: ghost.id });
    const team = await call(baseUrl, key, '/api/teams', { name, members: [{ bot_id: bot.id }] });
    const task = await call(baseUrl, key, '/api/tasks', { team_id: team.id, title: name });
    const token = await call(baseUrl, key, `/api/tasks/${task.id}/tokens`, { ttl_seconds: 86_400 });
    out.push({ taskId: task.id, token: token.token!, skillIds: picked.map((p) => p.id) });
  }
  return out;
}

/** The user and system CPU seconds a process has used so far (Linux). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the command.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident memory of a process, in MiB (Linux). */
export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024;
}
