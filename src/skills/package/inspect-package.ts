// The one entry point for checking an uploaded skill package (CONTRACT §3): every problem, the
// manifest, the parsed frontmatter and the two hashes, without ever throwing on bad input.
import { createHash } from 'node:crypto';
import { PackageLimits } from '../../config/app-config';
import { parseSkillMd } from './frontmatter';
import { ManifestFile, manifestRevision, sortManifest } from './manifest';
import { Problem, errorText, problem } from './problem';
import { findSkillRoot } from './skill-root';
import { ExpansionBudget, ZipItem, listZip, readItem } from './zip-reader';

export type { ManifestFile } from './manifest';
export type { Problem, ProblemCode, WarningCode } from './problem';

export interface PackageInspection {
  /** No errors; warnings do not count. */
  valid: boolean;
  name: string | null;
  description: string | null;
  /** Every problem found, not just the first. */
  errors: Problem[];
  warnings: Problem[];
  /** Files under the skill root; complete only when the package is valid. */
  files: ManifestFile[];
  frontmatter: Record<string, unknown> | null;
  /** `sha256:<hex>` of the RFC 8785 JSON of `files`; null when invalid. */
  revision: string | null;
  /** `sha256:<hex>` of the exact input bytes. */
  contentHash: string;
  size: number;
}

export async function inspectPackage(bytes: Buffer, limits: PackageLimits): Promise<PackageInspection> {
  const result: PackageInspection = {
    valid: false,
    name: null,
    description: null,
    errors: [],
    warnings: [],
    files: [],
    frontmatter: null,
    revision: null,
    contentHash: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    size: bytes.length,
  };
  try {
    await inspectArchive(bytes, limits, result);
  } catch (err) {
    // Only a defect can land here; the upload is still answered with a problem, not a crash.
    result.errors.push(problem('ZIP_INVALID', `The archive could not be inspected: ${errorText(err)}.`));
  }
  result.files = sortManifest(result.files);
  result.valid = result.errors.length === 0;
  result.revision = result.valid ? manifestRevision(result.files) : null;
  return result;
}

async function inspectArchive(bytes: Buffer, limits: PackageLimits, result: PackageInspection): Promise<void> {
  const listing = await listZip(bytes, limits);
  result.errors.push(...listing.problems);
  const { zip } = listing;
  if (!zip) return;
  try {
    const { root, problems } = findSkillRoot(listing.items);
    result.errors.push(...problems);
    const readable = listing.items.filter((item) => item.readable);
    const skillMd = root?.skillMd.readable ? root.skillMd : null;
    // SKILL.md first, so its problems are known even when a later entry ends the reading.
    const order: ZipItem[] = skillMd ? [skillMd, ...readable.filter((item) => item !== skillMd)] : readable;
    const budget = new ExpansionBudget(bytes.length, limits);
    for (const item of order) {
      const read = await readItem(zip, item, budget, item === skillMd);
      if (!read.ok) {
        result.errors.push(read.problem);
        if (read.stop) break;
        continue;
      }
      if (item === skillMd && read.data) {
        const parsed = parseSkillMd(read.data, root?.folder ?? null);
        result.frontmatter = parsed.frontmatter;
        result.name = parsed.name;
        result.description = parsed.description;
        result.errors.push(...parsed.errors);
        result.warnings.push(...parsed.warnings);
      }
      if (root && !item.ignored && item.path.startsWith(root.prefix)) {
        const path = item.path.slice(root.prefix.length);
        result.files.push({ path, size: read.size, sha256: read.sha256, mode: item.mode });
      }
    }
  } finally {
    zip.close();
  }
}
