// The requests of the MCP Skills extension and of the resources it rides on, as JSON-RPC params
// are checked before any handler runs (mcp-params.ts): the SDK's own schemas where it has them,
// with URIs bounded. A cursor is a string here: what it holds, its length included, is checked in
// one place, where it is decoded (skill-pages.ts). See docs/mcp-skills.md#limits.
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  PaginatedRequestParamsSchema,
  ReadResourceRequestParamsSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MAX_SKILL_URI_LENGTH } from './skill-uri';

const cursor = z.string().optional();
const uri = z.string().max(MAX_SKILL_URI_LENGTH, { error: `must be at most ${MAX_SKILL_URI_LENGTH} characters` });

const pageParams = PaginatedRequestParamsSchema.extend({ cursor });

export const BoundedListResourcesRequestSchema = ListResourcesRequestSchema.extend({ params: pageParams.optional() });
export const BoundedListResourceTemplatesRequestSchema = ListResourceTemplatesRequestSchema.extend({
  params: pageParams.optional(),
});
export const BoundedReadResourceRequestSchema = ReadResourceRequestSchema.extend({
  params: ReadResourceRequestParamsSchema.extend({ uri }),
});

export const SkillsListRequestSchema = z.object({
  method: z.literal('skills/list'),
  params: pageParams.optional(),
});

export const SkillsGetRequestSchema = z.object({
  method: z.literal('skills/get'),
  params: ReadResourceRequestParamsSchema.extend({ uri }),
});

export const DirectoryReadRequestSchema = z.object({
  method: z.literal('resources/directory/read'),
  params: ReadResourceRequestParamsSchema.extend({ uri, cursor }),
});
