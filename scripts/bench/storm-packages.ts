// The packages and teams of the sandbox start storm (docs/sandbox-client.md#start-storm), the same
// on every run: 60 skills, most of them 10-60 KB zipped (a SKILL.md, references, scripts, now and
// then a small image), one in ten 1-2 MB with incompressible assets; 20 teams whose one ghost lists
// 12 of them each. A seeded generator, so two runs (and two builds) are measured on the same bytes.
import { buildCanonicalZip, CanonicalFile } from '../../src/package/canonical-zip';

export const STORM_PACKAGES = 60;
export const STORM_TEAMS = 20;
export const SKILLS_PER_TEAM = 12;

export interface StormPackage {
  name: string;
  large: boolean;
  zip: Buffer;
}

/** mulberry32: a small seeded generator, good enough to pick sizes and words. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const WORDS = (
  'the a to of and in for with when run use file read write check test build deploy agent skill task ' +
  'tool command output input error report table value field schema request response service client ' +
  'server cache token version package folder path line step first then each every before after only ' +
  'never always should must may returns reads writes lists finds opens keeps sends data config option ' +
  'default example note warning python script shell json yaml markdown review commit branch merge diff'
).split(' ');

function prose(random: () => number, bytes: number): Buffer {
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const length = 6 + Math.floor(random() * 14);
    const words = Array.from({ length }, () => WORDS[Math.floor(random() * WORDS.length)]);
    const sentence = `${words.join(' ')}.${random() < 0.2 ? '\n\n' : ' '}`;
    parts.push(sentence);
    size += sentence.length;
  }
  return Buffer.from(parts.join('').slice(0, bytes));
}

function noise(random: () => number, bytes: number): Buffer {
  const data = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i += 4) data.writeUInt32LE(Math.floor(random() * 2 ** 32), Math.min(i, bytes - 4));
  return data;
}

/** Prose compresses about 3.3x here; a small package's text is sized so its zip lands on its target. */
const PROSE_RATIO = 3.3;

function smallPackage(name: string, random: () => number): CanonicalFile[] {
  const zipTarget = 10_240 + Math.floor(random() * 51_200);
  const image = random() < 0.3 ? 2048 + Math.floor(random() * 6144) : 0;
  const textBytes = Math.max(4096, Math.floor((zipTarget - image) * PROSE_RATIO));
  const references = 2 + Math.floor(random() * 4);
  const skillMd = Math.floor(textBytes * 0.25);
  const perReference = Math.floor((textBytes * 0.65) / references);
  const files: CanonicalFile[] = [
    {
      path: 'SKILL.md',
      mode: '644',
      data: Buffer.concat([
        Buffer.from(`---\nname: ${name}\ndescription: Storm skill ${name}.\n---\n# ${name}\n\n`),
        prose(random, skillMd),
      ]),
    },
    ...Array.from({ length: references }, (_, i) => ({
      path: `references/part-${i + 1}.md`,
      mode: '644' as const,
      data: prose(random, perReference),
    })),
    {
      path: 'scripts/run.sh',
      mode: '755',
      data: Buffer.from(`#!/bin/sh\n# ${name}\nexec python3 "$(dirname "$0")/main.py" "$@"\n`),
    },
    { path: 'scripts/main.py', mode: '644', data: prose(random, Math.floor(textBytes * 0.1)) },
  ];
  if (image > 0) files.push({ path: 'assets/icon.png', mode: '644', data: noise(random, image) });
  return files;
}

function largePackage(name: string, random: () => number): CanonicalFile[] {
  const total = 1_048_576 + Math.floor(random() * 1_048_576);
  const assets = 4 + Math.floor(random() * 9);
  return [
    {
      path: 'SKILL.md',
      mode: '644',
      data: Buffer.concat([
        Buffer.from(`---\nname: ${name}\ndescription: Storm skill ${name}, with assets.\n---\n# ${name}\n\n`),
        prose(random, 6000),
      ]),
    },
    { path: 'references/guide.md', mode: '644', data: prose(random, 30_000) },
    ...Array.from({ length: assets }, (_, i) => ({
      path: `assets/image-${String(i + 1).padStart(2, '0')}.png`,
      mode: '644' as const,
      data: noise(random, Math.floor(total / assets)),
    })),
  ];
}

/** The 60 packages, named `storm-<run>-NN`; every tenth is large. */
export function stormPackages(run: string): StormPackage[] {
  return Array.from({ length: STORM_PACKAGES }, (_, i) => {
    const random = generator(1000 + i);
    const name = `storm-${run}-${String(i + 1).padStart(2, '0')}`;
    const large = i % 10 === 9;
    const files = large ? largePackage(name, random) : smallPackage(name, random);
    return { name, large, zip: buildCanonicalZip(name, files) };
  });
}

/** For each team, the indexes of the 12 packages its ghost lists. */
export function teamSelections(): number[][] {
  return Array.from({ length: STORM_TEAMS }, (_, team) => {
    const random = generator(5000 + team);
    const picked = new Set<number>();
    while (picked.size < SKILLS_PER_TEAM) picked.add(Math.floor(random() * STORM_PACKAGES));
    return [...picked].sort((a, b) => a - b);
  });
}
