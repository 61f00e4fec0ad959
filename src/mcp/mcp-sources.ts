// What the MCP tools read that other features serve. Each source is the service an HTTP route
// uses, bound in McpModule, so a tool answers exactly what its route answers.
import { Inject, Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { Principal, UserPrincipal } from '../auth/principal';
import type { ManifestDto } from '../skills/dto/skill.dto';
import type { SkillSearchResultDto } from '../skills/dto/skill-search.dto';
import { McpSkillCatalog } from './mcp-skill-catalog.service';

export const MCP_SKILL_MANIFESTS = Symbol('MCP_SKILL_MANIFESTS');
export const MCP_SKILL_SEARCH = Symbol('MCP_SKILL_SEARCH');
export const MCP_SKILL_FILES = Symbol('MCP_SKILL_FILES');

/** A manifest as `GET /api/skills/{id}/manifest` answers it (with the SKILL.md text where served). */
export type SkillManifest = ManifestDto & { skill_md?: string | null };

/** `GET /api/skills/{id}/manifest?version=`: the same answer and the same DomainErrors. */
export interface SkillManifestSource {
  manifest(principal: Principal, skillId: number, version: number | undefined): Promise<SkillManifest>;
}

/** The parameters of `GET /api/skills/search`, already checked against its bounds. */
export interface SkillSearchInput {
  q: string;
  limit?: number;
  min_score?: number;
}

/** The answer of `GET /api/skills/search` (docs/search.md). */
export type SkillSearchAnswer = SkillSearchResultDto;

/** `GET /api/skills/search` for a user (tokens never reach it). */
export interface SkillSearchSource {
  search(caller: UserPrincipal, input: SkillSearchInput): Promise<SkillSearchAnswer>;
}

/** One file of a version, opened with the access and version rules of the single-file route. */
export interface OpenedSkillFile {
  skill_id: number;
  /** The version read: the one asked for, else the route's default (latest; a token's resolved one). */
  version: number;
  path: string;
  size: number;
  /** Bare hex, as in the manifest. */
  sha256: string;
  /** The `Content-Type` the single-file route sends for it. */
  content_type: string;
  /** The file's bytes; destroyed unread when the tool does not return them. */
  stream: Readable;
}

/** `GET /api/skills/{id}/files/{path}?version=`: the same access, the same DomainErrors (404s). */
export interface SkillFileSource {
  open(principal: Principal, skillId: number, path: string, version: number | undefined): Promise<OpenedSkillFile>;
}

/** The sources bound at boot. */
@Injectable()
export class McpSources {
  constructor(
    @Inject(MCP_SKILL_MANIFESTS) readonly manifests: SkillManifestSource,
    @Inject(MCP_SKILL_SEARCH) readonly search: SkillSearchSource,
    @Inject(MCP_SKILL_FILES) readonly files: SkillFileSource,
    /** The MCP Skills extension's reads (skills/list, resources/read, ...). */
    readonly skills: McpSkillCatalog,
  ) {}
}
