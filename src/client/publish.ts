// `skill-resolver publish DIR` (docs/sandbox-client.md#publish): the folder read as a package, the
// archive written by the project's canonical writer and checked by the service's own package rules
// here, before anything is sent, so every problem shows with the service's code; then uploaded as
// a new skill, or as a version of the skill of that name in that scope (the same files: nothing new).
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { compressCanonical, writeCanonicalZip } from '../package/canonical-zip';
import { inspectPackage, ManifestFile, PackageInspection, Problem } from '../package/inspect-package';
import { Deadline, DEFAULT_SLOW_DOWNLOAD, DEFAULT_TIMEOUT_MS } from './deadline';
import { ClientError, EXIT_FAILED, EXIT_INTEGRITY, UsageError } from './errors';
import { ClientPackageLimits, DEFAULT_PACKAGE_LIMITS } from './limits';
import { HttpAnswer, Payload, RetryNotice, serviceError, ServiceClient } from './service-client';
import { readSkillFolder } from './skill-folder';

/** A task token cannot publish; an API key's secret never starts so. */
const TASK_TOKEN_PREFIX = 'srt_';
const DEFAULT_NAMESPACE = 'default';
/** The service's answers to a lookup and an upload are a few KiB. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface PublishOptions {
  url: string;
  token: string;
  dir: string;
  /** `default` (the caller's own skills) or a group. */
  namespace?: string;
  public?: boolean;
  dryRun?: boolean;
  timeoutMs?: number;
  limits?: ClientPackageLimits;
  signal?: AbortSignal;
  onRetry?: (notice: RetryNotice & { what: string }) => void;
}

/** The Version of the service's answers (docs/api.md). */
export interface PublishedVersion {
  version: number;
  content_hash: string;
  revision: string;
  size: number;
  file_count: number;
  created_at: string;
  [key: string]: unknown;
}

/** A problem of the package rules, or the upload limit's PACKAGE_TOO_LARGE (an HTTP error's code). */
export type PublishProblem = Omit<Problem, 'code'> & { code: string };

export type PublishResult =
  | { kind: 'invalid'; name: string | null; problems: PublishProblem[]; warnings: Problem[] }
  | {
      kind: 'checked';
      name: string;
      namespace: string;
      isPublic: boolean;
      files: ManifestFile[];
      contentHash: string;
      revision: string;
      size: number;
      warnings: Problem[];
    }
  | {
      kind: 'published';
      outcome: 'created' | 'versioned' | 'unchanged';
      skillId: number;
      name: string;
      namespace: string;
      isPublic: boolean;
      version: PublishedVersion;
      warnings: Problem[];
      requests: number;
      retries: number;
    };

/** The folder as the package the service would store, with every problem the package rules find. */
export function checkFolder(
  dir: string,
  limits: ClientPackageLimits,
): Omit<PackageInspection, 'errors'> & { errors: PublishProblem[] } {
  const folder = readSkillFolder(dir, limits);
  // Written with SKILL.md at the archive's root, as an upload may be: the rules then name no
  // folder, so the skill's name comes from SKILL.md alone, and the stored form they rebuild is
  // `<name>/<path>`, exactly what the service stores.
  const archive = writeCanonicalZip('', folder.files.map(compressCanonical));
  const inspection = inspectPackage(archive, limits);
  const errors: PublishProblem[] = [...folder.problems, ...inspection.errors];
  if (inspection.canonical && inspection.canonical.length > limits.maxPackageBytes) {
    errors.push({
      code: 'PACKAGE_TOO_LARGE',
      message: `The package is ${inspection.canonical.length} bytes, more than the ${limits.maxPackageBytes} an upload may be.`,
    });
  }
  return { ...inspection, errors, valid: errors.length === 0 };
}

function multipart(fields: Record<string, string>, file: { name: string; data: Buffer }): Payload {
  const boundary = `skill-resolver-${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
        'Content-Type: application/zip\r\n\r\n',
    ),
    file.data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

function json<T>(answer: HttpAnswer): T {
  return JSON.parse(answer.body.toString('utf8')) as T;
}

interface SkillAnswer {
  id: number;
  name: string;
  namespace: string;
  is_public: boolean;
  latest_version: PublishedVersion;
}

/** The service's problems of a refused package (400 SKILL_INVALID), as the client lists its own. */
function serverProblems(answer: HttpAnswer): Problem[] | null {
  try {
    const body = json<{ code?: string; details?: { errors?: Problem[] } }>(answer);
    return body.code === 'SKILL_INVALID' && Array.isArray(body.details?.errors) ? body.details.errors : null;
  } catch {
    return null;
  }
}

export async function publish(options: PublishOptions): Promise<PublishResult> {
  const dir = resolvePath(options.dir);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${options.dir} is not a folder`);
  const isPublic = options.public === true;
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  if (isPublic && namespace !== DEFAULT_NAMESPACE)
    throw new UsageError('--public skills live in the default namespace');
  const limits = options.limits ?? DEFAULT_PACKAGE_LIMITS;

  const checked = checkFolder(dir, limits);
  if (!checked.valid) {
    return { kind: 'invalid', name: checked.name, problems: checked.errors, warnings: checked.warnings };
  }
  const name = checked.name!;
  if (options.dryRun) {
    return {
      kind: 'checked',
      name,
      namespace,
      isPublic,
      files: checked.files,
      contentHash: checked.contentHash!,
      revision: checked.revision!,
      size: checked.canonical!.length,
      warnings: checked.warnings,
    };
  }
  if (!options.url) throw new UsageError('publish needs the service URL: SKILL_RESOLVER_URL or --url');
  if (!options.token) throw new UsageError('publish needs an API key: SKILL_RESOLVER_TOKEN or --token');
  if (options.token.startsWith(TASK_TOKEN_PREFIX)) {
    throw new UsageError('publish needs an API key; the token given is a task token, which may only read its task');
  }

  const deadline = new Deadline(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.signal, 'publish');
  const client = new ServiceClient(options.url, options.token, 1, {
    signal: deadline.signal,
    aborted: () => deadline.error(),
    slow: DEFAULT_SLOW_DOWNLOAD,
    remainingMs: () => deadline.remainingMs(),
    sleep: (ms) => deadline.sleep(ms),
  });
  const tooLarge = (): Error => new ClientError(EXIT_FAILED, "The service's answer is too large");
  const call = (what: string) => ({
    what,
    maxBytes: MAX_ANSWER_BYTES,
    tooLarge,
    onRetry: (notice: RetryNotice) => options.onRetry?.({ ...notice, what }),
  });
  const refused = (what: string, answer: HttpAnswer): ClientError => {
    const problems = serverProblems(answer);
    if (problems || answer.status === 413) {
      // The service's rules or limits differ from these defaults (a deployment changed them).
      const listed = problems ? `: ${problems.map((p) => `${p.code} ${p.message}`).join('; ')}` : '';
      return new ClientError(EXIT_INTEGRITY, `${what}: the service refused the package (${answer.status})${listed}`);
    }
    return new ClientError(EXIT_FAILED, `${what}: the service answered ${answer.status}${serviceError(answer)}`);
  };
  const file = { name: `${name}.zip`, data: checked.canonical! };

  try {
    const query = new URLSearchParams({ name, namespace, is_public: String(isPublic), limit: '1' });
    const found = async (): Promise<SkillAnswer | undefined> => {
      const answer = await client.get(`/skills?${query.toString()}`, call(`Looking up ${name}`));
      if (answer.status !== 200) throw refused(`Looking up ${name}`, answer);
      return json<{ items: SkillAnswer[] }>(answer).items.find((s) => s.name === name);
    };
    const addVersion = async (skill: SkillAnswer) => {
      const what = `Publishing ${name} as a version of skill ${skill.id}`;
      const answer = await client.post(`/skills/${skill.id}/versions`, multipart({}, file), call(what));
      if (answer.status !== 200 && answer.status !== 201) throw refused(what, answer);
      return {
        outcome: answer.status === 201 ? ('versioned' as const) : ('unchanged' as const),
        skill: json<SkillAnswer>(answer),
      };
    };
    let existing = await found();
    let done: { outcome: 'created' | 'versioned' | 'unchanged'; skill: SkillAnswer };
    if (existing) {
      done = await addVersion(existing);
    } else {
      const what = `Publishing ${name}`;
      const fields: Record<string, string> = isPublic ? { public: 'true' } : { namespace };
      const answer = await client.post('/skills', multipart(fields, file), call(what));
      if (answer.status === 201) {
        done = { outcome: 'created', skill: json<SkillAnswer>(answer) };
      } else if (answer.status === 409 && (existing = await found())) {
        // Published by someone else meanwhile: a version of it instead.
        done = await addVersion(existing);
      } else {
        throw refused(what, answer);
      }
    }
    return {
      kind: 'published',
      outcome: done.outcome,
      skillId: done.skill.id,
      name,
      namespace: done.skill.namespace,
      isPublic: done.skill.is_public,
      version: done.skill.latest_version,
      warnings: checked.warnings,
      requests: client.requests,
      retries: client.retries,
    };
  } finally {
    client.close();
  }
}
