// The rules of the well-known index (docs/well-known.md): entries, the description cut, archive
// names and the installer's limits; and the archive writer's root layout.
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import {
  buildCanonicalZip,
  CanonicalFile,
  compressCanonical,
  writeCanonicalZip,
} from '../../src/package/canonical-zip';
import { ManifestFile, sortManifest } from '../../src/package/manifest';
import { rootArchive } from '../../src/package/root-archive';
import { StoredPackageError } from '../../src/package/stored-package';
import { listZip } from '../../src/package/zip-reader';
import {
  archiveName,
  cutDescription,
  DISCOVERY_SCHEMA,
  discoveryIndex,
  INSTALLER_MAX_EXPANDED_BYTES,
  installerRefusal,
  ListedVersion,
  MAX_ARCHIVE_NAME_LENGTH,
  parseArchiveName,
} from '../../src/skill-index/discovery-index';
import { DEFAULT_LIMITS } from '../support/package-limits';

const REVISION = `sha256:${'0123456789abcdef'.repeat(4)}`;
const DIGEST = `sha256:${'f'.repeat(64)}`;
/** U+1F600, two UTF-16 code units. */
const ASTRAL = '\u{1F600}';

describe('cutDescription: at most 1,024 UTF-16 code units, never inside a surrogate pair', () => {
  it.each<[string, string, string]>([
    ['short text, kept whole', 'Converts PDFs.', 'Converts PDFs.'],
    ['exactly 1,024 units, kept whole', 'a'.repeat(1024), 'a'.repeat(1024)],
    ['1,025 ASCII units: the last one goes', 'a'.repeat(1025), 'a'.repeat(1024)],
    ['512 astral characters are 1,024 units: kept whole', ASTRAL.repeat(512), ASTRAL.repeat(512)],
    [
      'a pair across the cut (units 1,024 and 1,025): the whole pair goes',
      `${'a'.repeat(1023)}${ASTRAL}b`,
      'a'.repeat(1023),
    ],
    ['a pair ending at unit 1,024: kept', `${'a'.repeat(1022)}${ASTRAL}b`, `${'a'.repeat(1022)}${ASTRAL}`],
    ['4,096 astral characters: 512 kept', ASTRAL.repeat(4096), ASTRAL.repeat(512)],
    ['1,024 characters of 3 UTF-8 bytes (1 unit each): kept', 'é'.repeat(1024), 'é'.repeat(1024)],
  ])('%s', (_, text, expected) => {
    const cut = cutDescription(text);
    expect(cut).toBe(expected);
    expect(cut.length).toBeLessThanOrEqual(1024);
    expect(cut.isWellFormed()).toBe(true);
    expect(text.startsWith(cut)).toBe(true);
  });
});

describe('archive names: <name>-<version>-<first 12 hex of the revision>.zip', () => {
  it('names a version and reads back what it named', () => {
    const file = archiveName('pdf-2', 13, REVISION);
    expect(file).toBe('pdf-2-13-0123456789ab.zip');
    expect(parseArchiveName(file)).toEqual({ name: 'pdf-2', version: 13, revisionPrefix: '0123456789ab' });
  });

  it.each<[string, string, ReturnType<typeof parseArchiveName>]>([
    ['a one-letter name', 'a-1-0123456789ab.zip', { name: 'a', version: 1, revisionPrefix: '0123456789ab' }],
    [
      'a name ending in digits',
      'k8s-2-7-0123456789ab.zip',
      { name: 'k8s-2', version: 7, revisionPrefix: '0123456789ab' },
    ],
    [
      'the largest version',
      'a-2147483647-0123456789ab.zip',
      { name: 'a', version: 2147483647, revisionPrefix: '0123456789ab' },
    ],
    [
      'a 64-character name',
      `${'a'.repeat(64)}-1-0123456789ab.zip`,
      { name: 'a'.repeat(64), version: 1, revisionPrefix: '0123456789ab' },
    ],
    ['a version past 32 bits', 'a-2147483648-0123456789ab.zip', null],
    ['version 0', 'a-0-0123456789ab.zip', null],
    ['a leading zero', 'a-01-0123456789ab.zip', null],
    ['no name', '-1-0123456789ab.zip', null],
    ['a 65-character name', `${'a'.repeat(65)}-1-0123456789ab.zip`, null],
    ['11 hex digits', 'a-1-0123456789a.zip', null],
    ['13 hex digits', 'a-1-0123456789abc.zip', null],
    ['upper-case hex', 'a-1-0123456789AB.zip', null],
    ['an upper-case name', 'A-1-0123456789ab.zip', null],
    ['another extension', 'a-1-0123456789ab.tar.gz', null],
    ['no extension', 'a-1-0123456789ab', null],
    ['a traversal', '..-1-0123456789ab.zip', null],
    ['a double hyphen in the name', 'a--b-1-0123456789ab.zip', null],
    ['a slash (an encoded one arrives decoded)', 'x/a-1-0123456789ab.zip', null],
    ['a NUL', 'a\u0000-1-0123456789ab.zip', null],
    ['the index itself', 'index.json', null],
    ['an empty name', '', null],
  ])('%s', (_, file, expected) => {
    expect(parseArchiveName(file)).toEqual(expected);
  });

  it('refuses a name longer than the longest archive name before reading it', () => {
    expect(MAX_ARCHIVE_NAME_LENGTH).toBe(92);
    expect(parseArchiveName(`${'a'.repeat(64)}-2147483647-0123456789ab.zip`)).not.toBeNull();
    expect(parseArchiveName(`${'a'.repeat(100_000)}-1-0123456789ab.zip`)).toBeNull();
    expect(parseArchiveName(`${'a-'.repeat(50_000)}1-0123456789ab.zip`)).toBeNull();
  });
});

describe('installerRefusal: what the skills installer cannot take', () => {
  const contents = (fileCount: number, expandedBytes: number, paths: string[] = ['SKILL.md']) => ({
    fileCount,
    expandedBytes,
    paths,
  });
  it.each<[string, ReturnType<typeof contents>, ReturnType<typeof installerRefusal>]>([
    ['one small file', contents(1, 100), null],
    ['1,000 files', contents(1000, 100), null],
    ['1,001 files', contents(1001, 100), 'TOO_MANY_FILES'],
    ['exactly 50 MiB expanded', contents(2, INSTALLER_MAX_EXPANDED_BYTES), null],
    ['one byte past 50 MiB', contents(2, INSTALLER_MAX_EXPANDED_BYTES + 1), 'TOO_LARGE'],
    ['a path that reads as a drive', contents(2, 10, ['SKILL.md', 'c:notes.md']), 'PATH_REFUSED'],
    ['a drive-like name below a folder', contents(2, 10, ['SKILL.md', 'docs/c:notes.md']), null],
    ['a digit before a colon', contents(2, 10, ['SKILL.md', '1:notes.md']), null],
  ])('%s', (_, given, expected) => {
    expect(installerRefusal(given)).toBe(expected);
  });
});

describe('discoveryIndex', () => {
  const version = (name: string, digest: string | null, description = `About ${name}.`): ListedVersion => ({
    name,
    version: 3,
    revision: REVISION,
    description,
    digest,
  });

  it('lists the versions with a digest, by name in byte order, with relative archive URLs', () => {
    const index = discoveryIndex([
      version('pdf', DIGEST),
      version('left-out', null),
      version('a-b', DIGEST),
      version('ab', DIGEST),
      version('a9', DIGEST),
    ]);
    expect(index.$schema).toBe(DISCOVERY_SCHEMA);
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    expect(index.skills.map((s) => s.name)).toEqual(['a-b', 'a9', 'ab', 'pdf']);
    expect(index.skills[3]).toEqual({
      name: 'pdf',
      type: 'archive',
      description: 'About pdf.',
      url: 'archives/pdf-3-0123456789ab.zip',
      digest: DIGEST,
    });
  });

  it('leaves out what the installer would skip: a name no skill could bear, an empty description', () => {
    const index = discoveryIndex([
      version('ok', DIGEST),
      version('Upper', DIGEST),
      version('double--hyphen', DIGEST),
      version('-leading', DIGEST),
      version('a'.repeat(65), DIGEST),
      version('quiet', DIGEST, ''),
    ]);
    expect(index.skills.map((s) => s.name)).toEqual(['ok']);
  });

  it('cuts each description, and lists nothing for no versions', () => {
    const long = ASTRAL.repeat(600);
    expect(discoveryIndex([version('x', DIGEST, long)]).skills[0].description).toBe(ASTRAL.repeat(512));
    expect(discoveryIndex([])).toEqual({ $schema: DISCOVERY_SCHEMA, skills: [] });
  });

  it('writes each entry with exactly the fields of the format, in a fixed order', () => {
    const [entry] = discoveryIndex([version('x', DIGEST)]).skills;
    expect(Object.keys(entry)).toEqual(['name', 'type', 'description', 'url', 'digest']);
  });
});

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A version as publish stores it: the canonical zip, its hash and its manifest. */
function stored(name: string, files: CanonicalFile[]): { zip: Buffer; contentHash: string; manifest: ManifestFile[] } {
  const manifest = sortManifest(
    files.map((f) => ({ path: f.path, size: f.data.length, sha256: sha256(f.data), mode: f.mode })),
  );
  const ordered = manifest.map((m) => files.find((f) => f.path === m.path)!);
  const zip = buildCanonicalZip(name, ordered);
  return { zip, contentHash: `sha256:${sha256(zip)}`, manifest };
}

/** Entry name -> bytes, read back with the project's strict reader. */
function unpack(zip: Buffer): Map<string, { data: Buffer; mode: string }> {
  const listing = listZip(zip, DEFAULT_LIMITS);
  expect(listing.ok).toBe(true);
  expect(listing.problems).toEqual([]);
  return new Map(
    listing.entries.map((e) => {
      const body = zip.subarray(e.dataStart, e.dataStart + e.compressedSize);
      return [e.name, { data: e.method === 8 ? inflateRawSync(body) : Buffer.from(body), mode: e.mode }];
    }),
  );
}

describe('rootArchive: the stored package with SKILL.md at the archive root', () => {
  const files: CanonicalFile[] = [
    { path: 'SKILL.md', mode: '644', data: Buffer.from('---\nname: pdf\ndescription: Reads PDFs.\n---\nRead it.\n') },
    { path: 'scripts/run.sh', mode: '755', data: Buffer.from('#!/bin/sh\necho run\n') },
    { path: 'docs/résumé.md', mode: '644', data: Buffer.from('x'.repeat(5000)) },
    { path: 'assets/noise.bin', mode: '644', data: createHash('sha512').update('seed').digest() },
    { path: 'empty.txt', mode: '644', data: Buffer.alloc(0) },
  ];

  it('holds every file of the manifest at the root, byte for byte, with its mode', () => {
    const pkg = stored('pdf', files);
    const archive = rootArchive(pkg.zip, pkg.contentHash, 'pdf', pkg.manifest);
    const unpacked = unpack(archive);
    expect([...unpacked.keys()]).toEqual(pkg.manifest.map((m) => m.path));
    for (const file of files) {
      expect({
        path: file.path,
        data: sha256(unpacked.get(file.path)!.data),
        mode: unpacked.get(file.path)!.mode,
      }).toEqual({
        path: file.path,
        data: sha256(file.data),
        mode: file.mode,
      });
    }
  });

  it('is exactly what the canonical writer writes for those files in root layout', () => {
    const pkg = stored('pdf', files);
    const ordered = pkg.manifest.map((m) => files.find((f) => f.path === m.path)!);
    const direct = writeCanonicalZip('', ordered.map(compressCanonical));
    expect(rootArchive(pkg.zip, pkg.contentHash, 'pdf', pkg.manifest).equals(direct)).toBe(true);
    // The stored form is the same writer with the skill's folder in front.
    expect(writeCanonicalZip('pdf/', ordered.map(compressCanonical)).equals(pkg.zip)).toBe(true);
  });

  it('copies the stored bodies as they are, so a package deflated by another zlib keeps its bytes', () => {
    // A body deflated at another level stands for another zlib's output: valid, but not what this
    // process would write. The archive must carry it unchanged, not deflate the file again.
    const data = Buffer.from('the same words again and again. '.repeat(400));
    const body = deflateRawSync(data, { level: 1 });
    const entry = { ...compressCanonical({ path: 'SKILL.md', mode: '644', data }), body };
    expect(body.equals(compressCanonical({ path: 'SKILL.md', mode: '644', data }).body)).toBe(false);
    const zip = writeCanonicalZip('x/', [entry]);
    const manifest: ManifestFile[] = [{ path: 'SKILL.md', size: data.length, sha256: sha256(data), mode: '644' }];
    const archive = rootArchive(zip, `sha256:${sha256(zip)}`, 'x', manifest);
    expect(archive.equals(writeCanonicalZip('', [entry]))).toBe(true);
    expect(archive.includes(body)).toBe(true);
    expect(unpack(archive).get('SKILL.md')!.data.equals(data)).toBe(true);
  });

  it.each<[string, (pkg: ReturnType<typeof stored>) => [Buffer, string, string, ManifestFile[]]]>([
    [
      'bytes that do not hash to the content hash',
      (p) => [Buffer.concat([p.zip, Buffer.from([0])]), p.contentHash, 'pdf', p.manifest],
    ],
    ['a manifest with a file fewer', (p) => [p.zip, p.contentHash, 'pdf', p.manifest.slice(1)]],
    [
      'a manifest naming another file',
      (p) => [p.zip, p.contentHash, 'pdf', p.manifest.map((m, i) => (i === 0 ? { ...m, path: 'other.md' } : m))],
    ],
    [
      'a manifest with another size',
      (p) => [p.zip, p.contentHash, 'pdf', p.manifest.map((m, i) => (i === 0 ? { ...m, size: m.size + 1 } : m))],
    ],
    [
      'a manifest with another mode',
      (p) => [p.zip, p.contentHash, 'pdf', p.manifest.map((m) => ({ ...m, mode: '755' as const }))],
    ],
    ['another skill name', (p) => [p.zip, p.contentHash, 'pdf-2', p.manifest]],
    [
      'bytes that are no zip',
      () => [Buffer.from('not a zip'), `sha256:${sha256(Buffer.from('not a zip'))}`, 'pdf', []],
    ],
  ])('refuses %s (StoredPackageError)', (_, make) => {
    const [bytes, hash, name, manifest] = make(stored('pdf', files));
    expect(() => rootArchive(bytes, hash, name, manifest)).toThrow(StoredPackageError);
  });
});
