// What the MCP Skills extension says about one version (docs/mcp-skills.md#methods): its entry
// (SKILL.md URI, frontmatter, every file with digest and size), whether it is within the
// extension's limits, and the children of one of its folders. Plain functions over the manifest.
import type { ManifestFile } from '../package/manifest';
import { fileType } from '../skills/file-content-type';
import { compareNames } from './skill-pages';
import { SkillScope, skillPath, skillUri } from './skill-uri';

/** The extension's per-skill limits: a skill past either is left out of skills/list. */
export const SKILL_MAX_RESOURCES = 512;
export const SKILL_MAX_BYTES = 16 * 1024 * 1024;
export const SKILL_MD = 'SKILL.md';
export const DIRECTORY_MIME_TYPE = 'inode/directory';

export interface SkillResourceDigest {
  uri: string;
  digest: string;
  size: number;
}

export interface SkillEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: SkillResourceDigest[];
}

/** A stored version as the extension sees it. */
export interface SkillVersionView {
  scope: SkillScope;
  name: string;
  manifest: ManifestFile[];
  frontmatter: Record<string, unknown>;
}

/** A resource of resources/list or resources/directory/read. */
export interface SkillResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  size?: number;
}

export function skillEntry(v: SkillVersionView): SkillEntry {
  return {
    uri: skillUri(v.scope, v.name, SKILL_MD),
    frontmatter: v.frontmatter,
    resources: v.manifest.map((file) => ({
      uri: skillUri(v.scope, v.name, file.path),
      digest: `sha256:${file.sha256}`,
      size: file.size,
    })),
  };
}

/** Why the version is past the extension's limits, or null when it is within them. */
export function overLimits(manifest: readonly ManifestFile[]): string | null {
  const bytes = manifest.reduce((sum, file) => sum + file.size, 0);
  const problems: string[] = [];
  if (manifest.length > SKILL_MAX_RESOURCES) {
    problems.push(`${manifest.length} files, more than the ${SKILL_MAX_RESOURCES} a skill may have`);
  }
  if (bytes > SKILL_MAX_BYTES) {
    problems.push(`${bytes} bytes of files, more than the ${SKILL_MAX_BYTES} (16 MiB) a skill may have`);
  }
  return problems.length
    ? `Left out of skills/list: this version has ${problems.join(' and ')} under the MCP Skills extension`
    : null;
}

/**
 * The media type of a file as the single-file route serves it, without the charset parameter (a
 * text content is a JSON string, not bytes): `text/markdown`, `text/plain` or
 * `application/octet-stream`, never HTML.
 */
export function mimeTypeOf(path: string): string {
  return fileType(path).contentType.split(';')[0].trim();
}

/** The SKILL.md of a version as resources/list shows it: name and description from the frontmatter. */
export function skillMdResource(v: SkillVersionView): SkillResource {
  const { name, description } = v.frontmatter;
  const skillMd = v.manifest.find((file) => file.path === SKILL_MD);
  return {
    uri: skillUri(v.scope, v.name, SKILL_MD),
    name: typeof name === 'string' ? name : v.name,
    // The name alone is not unique across scopes; the skill path is.
    title: skillPath(v.scope, v.name),
    ...(typeof description === 'string' ? { description } : {}),
    mimeType: mimeTypeOf(SKILL_MD),
    ...(skillMd ? { size: skillMd.size } : {}),
  };
}

/**
 * The direct children of a folder of the version (`path` null: its root), files with their media
 * type and size and folders as `inode/directory`, in byte order of their names; null when the
 * path is no folder of the version (a file, or nothing).
 */
export function directoryChildren(v: SkillVersionView, path: string | null): SkillResource[] | null {
  const prefix = path === null ? '' : `${path}/`;
  const files = new Map<string, SkillResource>();
  const folders = new Set<string>();
  let any = false;
  for (const file of v.manifest) {
    if (!file.path.startsWith(prefix)) continue;
    any = true;
    const rest = file.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) {
      files.set(rest, {
        uri: skillUri(v.scope, v.name, file.path),
        name: rest,
        mimeType: mimeTypeOf(file.path),
        size: file.size,
      });
    } else {
      folders.add(rest.slice(0, slash));
    }
  }
  if (!any) return null;
  const children: SkillResource[] = [...files.values()];
  for (const folder of folders) {
    children.push({
      uri: skillUri(v.scope, v.name, `${prefix}${folder}`),
      name: folder,
      mimeType: DIRECTORY_MIME_TYPE,
    });
  }
  return children.sort((a, b) => compareNames(a.name, b.name));
}
