// The MCP Skills extension over the registry (docs/mcp-skills.md): for a user every skill they may
// read at its latest version, for a task token exactly its task's resolved skill_refs at the
// versions the task resolves; the same access as the single-file route. Answers plain data; the
// MCP handlers (mcp-skills.ts) turn it into protocol results.
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import type { Principal, TaskTokenPrincipal, UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { NamespaceAccess } from '../groups/namespace-access.service';
import { TaskResolutionService } from '../resolution/task-resolution.service';
import { SkillFilesService } from '../skills/skill-files.service';
import { SkillReaders } from '../skills/skill-readers';
import type { SkillEntity } from '../skills/skill.entity';
import { CatalogRow, McpSkillCatalogRepository } from './mcp-skill-catalog.repository';
import {
  directoryChildren,
  mimeTypeOf,
  overLimits,
  SKILL_MAX_BYTES,
  SKILL_MD,
  SkillEntry,
  skillEntry,
  skillMdResource,
  SkillResource,
  SkillVersionView,
} from './skill-entries';
import {
  compareKeys,
  compareNames,
  decodeDirectoryCursor,
  decodeListCursor,
  encodeCursor,
  INVALID_CURSOR,
  ListKey,
  pageAfter,
  withinBudget,
} from './skill-pages';
import { parseSkillUri, SkillAddress, scopeOf, scopeRank, scopeSegment } from './skill-uri';

/** Entries per page of skills/list, and resource triples a page may carry in all. */
export const SKILLS_PAGE_SIZE = 50;
export const SKILLS_PAGE_RESOURCES = 2048;
/** SKILL.md resources per page of resources/list; children per page of a directory. */
export const RESOURCES_PAGE_SIZE = 100;
export const DIRECTORY_PAGE_SIZE = 200;
/** The largest file resources/read returns: the extension's limit for a whole skill. */
export const MAX_READ_BYTES = SKILL_MAX_BYTES;
const SHOWN_URI = 256;

/** A request the extension answers -32602 (invalid params): the message is the client's to read. */
export class SkillRequestRefused extends Error {}

/** A skill version the caller may read, and where it sits in the listing. */
interface Served extends SkillVersionView {
  key: ListKey;
  skillId: number;
  version: number;
}

export type FileContents =
  { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string };

function shown(uri: string): string {
  return uri.length > SHOWN_URI ? `${uri.slice(0, SHOWN_URI)}...` : uri;
}

function served(row: CatalogRow): Served {
  const scope = scopeOf(row);
  return {
    scope,
    name: row.name,
    manifest: row.manifest,
    frontmatter: row.frontmatter,
    skillId: row.skillId,
    version: row.version,
    key: { name: row.name, rank: scopeRank(scope), namespace: row.namespace },
  };
}

function listCursor(cursor: string | undefined): ListKey | null {
  if (cursor === undefined) return null;
  const after = decodeListCursor(cursor);
  if (!after) throw new SkillRequestRefused(INVALID_CURSOR);
  return after;
}

/** A version gone between the catalog's read and the file's (revoked, deleted) is not served. */
function goneAsRefused(err: unknown, refused: SkillRequestRefused): never {
  if (err instanceof DomainError && (err.code === 'VERSION_REVOKED' || err.code === 'NOT_FOUND')) throw refused;
  throw err;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

@Injectable()
export class McpSkillCatalog {
  constructor(
    private readonly catalog: McpSkillCatalogRepository,
    private readonly namespaces: NamespaceAccess,
    private readonly readers: SkillReaders,
    private readonly resolution: TaskResolutionService,
    private readonly files: SkillFilesService,
  ) {}

  /** skills/list: whole entries only, in name order then scope order, within the limits. */
  async listSkills(principal: Principal, cursor?: string): Promise<{ skills: SkillEntry[]; nextCursor?: string }> {
    const page = await this.page(principal, listCursor(cursor), SKILLS_PAGE_SIZE);
    const kept = withinBudget(page.items, (item) => item.manifest.length, SKILLS_PAGE_RESOURCES);
    const more = page.more || kept.length < page.items.length;
    const last = kept.length < page.items.length ? kept[kept.length - 1].key : page.last;
    return { skills: kept.map(skillEntry), ...(more && last ? { nextCursor: encodeCursor('skills', last) } : {}) };
  }

  /** skills/get: the entry of the skill whose SKILL.md `uri` names, listed or not, and why it is unlisted. */
  async getSkill(principal: Principal, uri: string): Promise<{ skill: SkillEntry; unlisted: string | null }> {
    const refused = new SkillRequestRefused(`No skill is served at ${shown(uri)}`);
    const address = parseSkillUri(uri);
    const found = address?.path === SKILL_MD ? await this.resolve(principal, address) : null;
    if (!found) throw refused;
    return { skill: skillEntry(found.served), unlisted: overLimits(found.served.manifest) };
  }

  /** resources/list: the SKILL.md of every listed skill. */
  async listResources(
    principal: Principal,
    cursor?: string,
  ): Promise<{ resources: SkillResource[]; nextCursor?: string }> {
    const page = await this.page(principal, listCursor(cursor), RESOURCES_PAGE_SIZE);
    return {
      resources: page.items.map(skillMdResource),
      ...(page.more && page.last ? { nextCursor: encodeCursor('skills', page.last) } : {}),
    };
  }

  /** resources/read: one file's bytes, as text when it is UTF-8 text and as base64 otherwise. */
  async readResource(principal: Principal, uri: string): Promise<FileContents> {
    const refused = new SkillRequestRefused(`Resource not found: ${shown(uri)}`);
    const address = parseSkillUri(uri);
    const found = address?.path ? await this.resolve(principal, address) : null;
    const path = found?.address.path;
    const file = path && found.served.manifest.find((f) => f.path === path);
    if (!found || !path || !file) throw refused;
    if (file.size > MAX_READ_BYTES) {
      throw new SkillRequestRefused(
        `${shown(uri)} is ${file.size} bytes, more than the ${MAX_READ_BYTES} resources/read returns: download it from ` +
          `/api/skills/${found.served.skillId}/files/${path.split('/').map(encodeURIComponent).join('/')}?version=${found.served.version}`,
      );
    }
    // Admins too are served no revoked version over MCP (docs/mcp-skills.md#revoked-versions).
    const opened = await this.files
      .open(found.skill, found.served.version, path, undefined, false, false)
      .catch((err: unknown) => goneAsRefused(err, refused));
    if (opened.notModified) throw new Error('a file read without If-None-Match answered 304');
    const bytes = await readAll(opened.stream);
    const mimeType = mimeTypeOf(path);
    const text = mimeType.startsWith('text/') && isUtf8(bytes) && !bytes.includes(0);
    return text ? { uri, mimeType, text: bytes.toString('utf8') } : { uri, mimeType, blob: bytes.toString('base64') };
  }

  /** resources/directory/read: the direct children of a folder of a skill (its root included). */
  async readDirectory(
    principal: Principal,
    uri: string,
    cursor?: string,
  ): Promise<{ resources: SkillResource[]; nextCursor?: string }> {
    const after = cursor === undefined ? null : decodeDirectoryCursor(cursor);
    if (cursor !== undefined && after === null) throw new SkillRequestRefused(INVALID_CURSOR);
    // The skill the URI names, as for resources/read; its path must then be one of its folders
    // (a file or a missing path is none).
    const address = parseSkillUri(uri);
    const found = address && (await this.resolve(principal, address));
    const children = found && directoryChildren(found.served, found.address.path);
    if (!children) throw new SkillRequestRefused(`No folder of a skill is served at ${shown(uri)}`);
    const page = pageAfter(children, (c) => c.name, compareNames, after, DIRECTORY_PAGE_SIZE);
    const last = page.items[page.items.length - 1];
    return {
      resources: page.items,
      ...(page.more && last ? { nextCursor: encodeCursor('directory', last.name) } : {}),
    };
  }

  /**
   * One page of what the caller is served, in listing order after `after`, versions past the
   * limits left out; `last` is the key the next page starts after.
   */
  private async page(
    principal: Principal,
    after: ListKey | null,
    limit: number,
  ): Promise<{ items: Served[]; more: boolean; last: ListKey | null }> {
    if (principal.kind === 'task_token') {
      const set = await this.tokenSet(principal);
      const page = pageAfter(set, (ref) => ref.key, compareKeys, after, limit);
      const rows = await this.catalog.versions(page.items);
      const byId = new Map(rows.map((row) => [row.skillId, row]));
      const items = page.items
        .map((ref) => byId.get(ref.skillId))
        .filter((row): row is CatalogRow => row !== undefined && overLimits(row.manifest) === null)
        .map(served);
      return { items, more: page.more, last: page.items[page.items.length - 1]?.key ?? null };
    }
    const rows = await this.catalog.listReadable(await this.reader(principal), after, limit + 1);
    const items = rows.slice(0, limit).map(served);
    return { items, more: rows.length > limit, last: items[items.length - 1]?.key ?? null };
  }

  private async reader(principal: UserPrincipal): Promise<{ userId: number; groups: string[] | 'all' }> {
    return { userId: principal.userId, groups: await this.namespaces.readableGroups(principal) };
  }

  /** The token's task's skill_refs in listing order (names are unique in a set). */
  private async tokenSet(
    principal: TaskTokenPrincipal,
  ): Promise<Array<{ skillId: number; version: number; key: ListKey; name: string; scope: string }>> {
    const resolution = await this.resolution.resolve(principal, principal.taskId);
    return Object.entries(resolution.skill_refs)
      .map(([name, ref]) => {
        const scope = scopeOf({ namespace: ref.namespace, isPublic: ref.is_public });
        return {
          skillId: ref.skill_id,
          version: ref.version,
          name,
          scope: scopeSegment(scope),
          key: { name, rank: scopeRank(scope), namespace: ref.namespace },
        };
      })
      .sort((a, b) => compareKeys(a.key, b.key));
  }

  /**
   * The skill `address` names, when the caller may read it, with the version served: for a user
   * the latest version as refs follow it (newest active or deprecated; none, not served), for a
   * token the version its task resolves, of a skill in its set. Never a revoked version (the
   * repository leaves those out). Unknown and unreadable are both null.
   */
  private async resolve(
    principal: Principal,
    address: SkillAddress,
  ): Promise<{ address: SkillAddress; skill: SkillEntity; served: Served } | null> {
    let ref: { skillId: number; version: number } | undefined;
    let skill: SkillEntity | null;
    if (principal.kind === 'task_token') {
      const segment = scopeSegment(address.scope);
      ref = (await this.tokenSet(principal)).find((r) => r.name === address.name && r.scope === segment);
      skill = ref ? await this.catalog.findById(ref.skillId) : null;
    } else {
      skill = await this.readable(
        principal,
        await this.catalog.findActive(address.scope, address.name, principal.userId),
      );
      const version = skill && (await this.catalog.followableVersionOf(skill));
      if (skill && version !== null) ref = { skillId: skill.id, version };
    }
    if (!ref || !skill) return null;
    const [row] = await this.catalog.versions([ref]);
    return row ? { address, skill, served: served(row) } : null;
  }

  /** The skill when the user may read it (the single-file route's rule), else null. */
  private async readable(principal: UserPrincipal, skill: SkillEntity | null): Promise<SkillEntity | null> {
    if (!skill) return null;
    try {
      return await this.readers.readable(principal, skill);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'NOT_FOUND') return null;
      throw err;
    }
  }
}
