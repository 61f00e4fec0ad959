// The Agent Skills discovery index (docs/well-known.md): which public versions it lists, what each
// entry says, and the names of their archives. Plain rules over plain values; the well-known
// feature feeds them the rows it read and the digests of the archives it built.
import { isRowNumber, isSkillName } from '../access/names';

/** The `$schema` of the discovery format this index follows (v0.2.0). */
export const DISCOVERY_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

/** The `skills` installer refuses an archive of more files than this... */
export const INSTALLER_MAX_FILES = 1_000;
/** ...or expanding to more bytes than this (50 MiB). */
export const INSTALLER_MAX_EXPANDED_BYTES = 50 * 1024 * 1024;
/** A longer `description` (in UTF-16 code units, as the installer counts) makes it skip the entry. */
export const MAX_DESCRIPTION_UNITS = 1_024;

/** Archive URLs are relative to the index, so it reads the same at the root and under a path. */
export const ARCHIVES_FOLDER = 'archives';

const MAX_VERSION = 2_147_483_647;
const REVISION_PREFIX_HEX = 12;
/** `<name>-<version>-<12 hex>.zip` at its longest: anything longer names no archive. */
export const MAX_ARCHIVE_NAME_LENGTH = 64 + 1 + String(MAX_VERSION).length + 1 + REVISION_PREFIX_HEX + '.zip'.length;

export interface IndexEntry {
  name: string;
  type: 'archive';
  description: string;
  url: string;
  /** `sha256:<lowercase hex>` of exactly the bytes at `url`. */
  digest: string;
}

export interface DiscoveryIndex {
  $schema: typeof DISCOVERY_SCHEMA;
  skills: IndexEntry[];
}

/** A public skill's latest version, as the index considers it. */
export interface ListedVersion {
  name: string;
  version: number;
  /** `sha256:<hex>` of the version's file list. */
  revision: string;
  description: string;
  /** The digest of its archive; null when it is left out (installerRefusal, or bytes that cannot be read). */
  digest: string | null;
}

/** What a version holds, as far as the installer's limits go. */
export interface ArchiveContents {
  fileCount: number;
  expandedBytes: number;
  /** Relative to the skill root. */
  paths: readonly string[];
}

export type InstallerRefusal = 'TOO_MANY_FILES' | 'TOO_LARGE' | 'PATH_REFUSED';

/**
 * Why the installer would refuse the archive of these contents, or null when it takes it. Besides
 * its two limits it refuses a path that reads as a Windows drive (`c:notes.md`), which a package
 * may hold below its root folder.
 */
export function installerRefusal(contents: ArchiveContents): InstallerRefusal | null {
  if (contents.fileCount > INSTALLER_MAX_FILES) return 'TOO_MANY_FILES';
  if (contents.expandedBytes > INSTALLER_MAX_EXPANDED_BYTES) return 'TOO_LARGE';
  if (contents.paths.some((path) => /^[A-Za-z]:/.test(path))) return 'PATH_REFUSED';
  return null;
}

/** At most `max` UTF-16 code units, never ending inside a surrogate pair. */
export function cutDescription(text: string, max = MAX_DESCRIPTION_UNITS): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** `<name>-<version>-<first 12 hex of the revision>.zip`. */
export function archiveName(name: string, version: number, revision: string): string {
  return `${name}-${version}-${revision.replace(/^sha256:/, '').slice(0, REVISION_PREFIX_HEX)}.zip`;
}

export interface ArchiveRequest {
  name: string;
  version: number;
  /** 12 lowercase hex digits. */
  revisionPrefix: string;
}

/**
 * What an archive file name asks for, or null when it cannot name one. The name is read from the
 * right (a skill name may hold hyphens and digits); anything longer than the longest possible name
 * is refused before it is looked at, so a hostile name costs constant time.
 */
export function parseArchiveName(file: string): ArchiveRequest | null {
  if (file.length > MAX_ARCHIVE_NAME_LENGTH || !file.endsWith('.zip')) return null;
  const parts = file.slice(0, -'.zip'.length).split('-');
  if (parts.length < 3) return null;
  const revisionPrefix = parts.pop()!;
  const versionText = parts.pop()!;
  const name = parts.join('-');
  if (!/^[0-9a-f]{12}$/.test(revisionPrefix) || !/^[1-9][0-9]{0,9}$/.test(versionText)) return null;
  const version = Number(versionText);
  if (!isRowNumber(version) || !isSkillName(name)) return null;
  return { name, version, revisionPrefix };
}

/**
 * The index: every version with a digest, by name (byte order), each pointing at its archive. A
 * name or description the installer would skip the entry for (a name no skill could bear, an
 * empty description, from rows older than the checks on publish) leaves the version out too.
 */
export function discoveryIndex(versions: readonly ListedVersion[]): DiscoveryIndex {
  const skills = versions
    .filter(
      (v): v is ListedVersion & { digest: string } => v.digest !== null && isSkillName(v.name) && v.description !== '',
    )
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((v): IndexEntry => ({
      name: v.name,
      type: 'archive',
      description: cutDescription(v.description),
      url: `${ARCHIVES_FOLDER}/${archiveName(v.name, v.version, v.revision)}`,
      digest: v.digest,
    }));
  return { $schema: DISCOVERY_SCHEMA, skills };
}
