// The one entry point for checking an uploaded skill package (docs/packages.md#validation): every problem, the
// manifest, the parsed frontmatter, the canonical zip that is stored instead of the upload, and
// its hashes, without ever throwing on bad input. Synchronous and CPU-bound: the service runs it
// in the inspection workers, never on the HTTP event loop.
import { createHash } from 'node:crypto';
import type { PackageLimits } from './limits';
import type { Requires } from '../policy';
import { buildCanonicalZip, CanonicalFile } from './canonical-zip';
import { FileOffset, fileOffsets } from './file-offsets';
import { MAX_SKILL_MD_BYTES, parseSkillMd } from './frontmatter';
import { ManifestFile, manifestRevision, sortManifest } from './manifest';
import { Problem, problem } from './problem';
import { findSkillRoot } from './skill-root';
import { ExpansionBudget, listZip, readEntry, ZipEntry } from './zip-reader';

export type { ManifestFile } from './manifest';
export type { FileOffset } from './file-offsets';
export type { Problem, ProblemCode, WarningCode } from './problem';

export interface PackageInspection {
  /** No errors; warnings do not count. */
  valid: boolean;
  name: string | null;
  description: string | null;
  /** Every problem found, not just the first. */
  errors: Problem[];
  warnings: Problem[];
  /** Files under the skill root, sorted by UTF-8 bytes; complete only when the package is valid. */
  files: ManifestFile[];
  frontmatter: Record<string, unknown> | null;
  /** The text of SKILL.md, when it could be read. */
  skillMd: string | null;
  /** `allowed-tools` read (docs/packages.md#tool-policy-fields): null when the key is absent (or the frontmatter unreadable). */
  allowedTools: string[] | null;
  /** What the skill needs in its sandbox (docs/packages.md#tool-policy-fields); empty lists when nothing is declared. */
  requires: Requires;
  /** `sha256:<hex>` of the RFC 8785 JSON of `files`; null when invalid. */
  revision: string | null;
  /** The zip that is stored (the canonical form of docs/packages.md#canonical-form); null when invalid. */
  canonical: Buffer | null;
  /** `sha256:<hex>` of `canonical`; null when invalid. */
  contentHash: string | null;
  /** Where each file of `files` lies in `canonical` (docs/storage.md#single-files); null when invalid. */
  fileOffsets: FileOffset[] | null;
  /** Bytes of the upload. */
  uploadSize: number;
}

/** An inspection that found nothing yet: every field empty, not valid. */
export function emptyInspection(uploadSize: number): PackageInspection {
  return {
    valid: false,
    name: null,
    description: null,
    errors: [],
    warnings: [],
    files: [],
    frontmatter: null,
    skillMd: null,
    revision: null,
    canonical: null,
    contentHash: null,
    fileOffsets: null,
    uploadSize,
    allowedTools: null,
    requires: { bins: [], env: [] },
  };
}

export function inspectPackage(bytes: Buffer, limits: PackageLimits): PackageInspection {
  const result = emptyInspection(bytes.length);
  const data = new Map<string, Buffer>();
  inspectArchive(bytes, limits, result, data);
  result.files = sortManifest(result.files);
  result.valid = result.errors.length === 0;
  if (result.valid) {
    result.revision = manifestRevision(result.files);
    const files: CanonicalFile[] = result.files.map((file) => ({
      path: file.path,
      mode: file.mode,
      data: data.get(file.path)!,
    }));
    result.canonical = buildCanonicalZip(result.name!, files);
    result.contentHash = `sha256:${createHash('sha256').update(result.canonical).digest('hex')}`;
    result.fileOffsets = fileOffsets(result.canonical, result.name!, result.files);
  }
  return result;
}

function inspectArchive(
  bytes: Buffer,
  limits: PackageLimits,
  result: PackageInspection,
  data: Map<string, Buffer>,
): void {
  const listing = listZip(bytes, limits);
  result.errors.push(...listing.problems);
  if (!listing.ok) return;
  const { root, problems } = findSkillRoot(listing.entries);
  result.errors.push(...problems);
  // Ignored entries are never stored, so their bytes need not be read at all.
  const readable = listing.entries.filter((entry) => entry.readable && !entry.ignored);
  const skillMd = root?.skillMd.readable ? root.skillMd : null;
  // SKILL.md first, so its problems are known even when a later entry ends the reading.
  const order: ZipEntry[] = skillMd ? [skillMd, ...readable.filter((entry) => entry !== skillMd)] : readable;
  const budget = new ExpansionBudget(bytes.length, limits);
  const skillMdCap = {
    bytes: MAX_SKILL_MD_BYTES,
    problem: () =>
      problem(
        'SKILL_MD_TOO_LARGE',
        `SKILL.md is larger than ${MAX_SKILL_MD_BYTES} bytes; move details to other files.`,
      ),
  };
  for (const entry of order) {
    const read = readEntry(bytes, entry, budget, entry === skillMd ? skillMdCap : undefined);
    if (!read.ok) {
      result.errors.push(read.problem);
      if (read.stop) break;
      continue;
    }
    if (entry === skillMd) {
      const parsed = parseSkillMd(read.data, root?.folder ?? null);
      result.frontmatter = parsed.frontmatter;
      result.name = parsed.name;
      result.description = parsed.description;
      result.skillMd = parsed.text;
      if (parsed.policy) {
        result.allowedTools = parsed.policy.allowed_tools;
        result.requires = parsed.policy.requires;
      }
      result.errors.push(...parsed.errors);
      result.warnings.push(...parsed.warnings);
    }
    if (root && entry.path.startsWith(root.prefix)) {
      const path = entry.path.slice(root.prefix.length);
      result.files.push({ path, size: read.data.length, sha256: sha256Hex(read.data), mode: entry.mode });
      data.set(path, read.data);
    }
  }
}

function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
