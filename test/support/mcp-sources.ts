// Stand-ins for the optional MCP sources (search, single files) until their services exist, built
// on what the app already serves: the list route's substring filter, and the whole package read
// through the download service (the same access for users and task tokens). They let the tests
// drive find_skills and read_skill_file end to end; what they answer is theirs, not the contract's.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import { DomainError } from '../../src/common/errors/domain-error';
import { McpSources, SkillFileSource, SkillSearchSource } from '../../src/mcp/mcp-sources';
import { SkillDownloadsService } from '../../src/resolution/skill-downloads.service';
import { listZip, STORED } from '../../src/skills/package/zip-reader';
import { SkillsReadService } from '../../src/skills/skills-read.service';
import { TestApp } from './test-app';

const TEXT_TYPES: Record<string, string> = { md: 'text/markdown; charset=utf-8', txt: 'text/plain; charset=utf-8' };

function listSearch(t: TestApp): SkillSearchSource {
  const reads = t.app.get(SkillsReadService);
  return {
    async search(caller, input) {
      const page = await reads.list(caller, { q: input.q, limit: input.limit ?? 8 });
      return {
        items: page.items.map((skill) => ({
          skill_id: skill.id,
          name: skill.name,
          description: skill.description,
          namespace: skill.namespace,
          is_public: skill.is_public,
          version: skill.latest_version.version,
          content_hash: skill.latest_version.content_hash,
          allowed_tools: skill.latest_version.allowed_tools,
          score: 1,
        })),
        query: input.q,
      };
    },
  };
}

function packageFiles(t: TestApp): SkillFileSource {
  const downloads = t.app.get(SkillDownloadsService);
  return {
    async open(principal, skillId, path, version) {
      const got = await downloads.download(principal, skillId, { version: version?.toString() });
      if (got.notModified) throw new Error('no If-None-Match was sent');
      const [, name, read] = /^(.*)-(\d+)\.zip$/.exec(got.filename)!;
      const entry = listZip(got.data, t.config.packageLimits).entries.find((e) => e.name === `${name}/${path}`);
      if (!entry) throw DomainError.notFound('File not found');
      const raw = got.data.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
      const bytes = entry.method === STORED ? raw : inflateRawSync(raw);
      const extension = /\.([a-z]+)$/.exec(path)?.[1] ?? '';
      return {
        skill_id: skillId,
        version: Number(read),
        path,
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        content_type: TEXT_TYPES[extension] ?? 'application/octet-stream',
        stream: Readable.from([bytes]),
      };
    },
  };
}

const booted = new WeakMap<McpSources, Pick<McpSources, 'search' | 'files'>>();

/**
 * Binds the stand-ins on the running app, or restores what it booted with; the next MCP request
 * sees the change.
 */
export function bindDiscoveryStandIns(t: TestApp, bound: boolean): void {
  const sources = t.app.get(McpSources);
  if (!booted.has(sources)) booted.set(sources, { search: sources.search, files: sources.files });
  const { search, files } = bound ? { search: listSearch(t), files: packageFiles(t) } : booted.get(sources)!;
  sources.search = search;
  sources.files = files;
}
