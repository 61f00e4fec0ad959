// The MCP Skills extension (SEP-2640) on the endpoint's server: its capability, skills/list,
// skills/get, resources/list, resources/read, resources/templates/list and
// resources/directory/read, each a thin adapter over McpSkillCatalog. docs/mcp-skills.md.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal';
import type { McpSkillCatalog } from './mcp-skill-catalog.service';
import { SkillRequestRefused } from './mcp-skill-catalog.service';
import {
  BoundedListResourcesRequestSchema,
  BoundedListResourceTemplatesRequestSchema,
  BoundedReadResourceRequestSchema,
  DirectoryReadRequestSchema,
  SkillsGetRequestSchema,
  SkillsListRequestSchema,
} from './mcp-skills-schemas';

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
/** Where skills/get says why a skill is left out of skills/list: this service's own `_meta` key. */
export const UNLISTED_META_KEY = 'skill-resolver/unlisted';

/** The capabilities the extension adds: its settings inline under its identifier, and resources. */
export const SKILLS_CAPABILITIES: Pick<ServerCapabilities, 'resources' | 'extensions'> = {
  resources: {},
  extensions: { [SKILLS_EXTENSION]: { directoryRead: true } },
};

/** File URIs by scope, as RFC 6570 templates: a client fills them in and reads with resources/read. */
const TEMPLATES = [
  {
    uriTemplate: 'skill://default/{name}/{+path}',
    name: 'personal-skill-file',
    title: 'A file of one of your personal skills',
    description: 'A file of the personal skill {name} at its latest version; {path} as the skill lists it',
  },
  {
    uriTemplate: 'skill://{group}/{name}/{+path}',
    name: 'group-skill-file',
    title: 'A file of a skill of a group',
    description:
      'A file of the skill {name} of the group {group} at its latest version; {group} is the group path with . for / ' +
      '(team-a.sub for team-a/sub)',
  },
  {
    uriTemplate: 'skill://public/{name}/{+path}',
    name: 'public-skill-file',
    title: 'A file of a public skill',
    description: 'A file of the public skill {name} at its latest version',
  },
];

/** A refusal as JSON-RPC -32602 with its own message (the SDK sends an error's `code` and `message`). */
async function refusedAsInvalidParams<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof SkillRequestRefused) {
      throw Object.assign(new Error(err.message), { code: ErrorCode.InvalidParams });
    }
    throw err;
  }
}

/**
 * Declares and serves the extension to `principal` on `server`, before it connects. The resources
 * capability is declared here rather than in McpServer's options, which would install its own
 * handlers for registered resources and claim list-change notifications a stateless endpoint never
 * sends.
 */
export function registerSkills(server: McpServer, principal: Principal, catalog: McpSkillCatalog): void {
  const on = server.server;
  on.registerCapabilities(SKILLS_CAPABILITIES);
  on.setRequestHandler(SkillsListRequestSchema, (request) =>
    refusedAsInvalidParams(() => catalog.listSkills(principal, request.params?.cursor)),
  );
  on.setRequestHandler(SkillsGetRequestSchema, (request) =>
    refusedAsInvalidParams(async () => {
      const { skill, unlisted } = await catalog.getSkill(principal, request.params.uri);
      return { skill, ...(unlisted ? { _meta: { [UNLISTED_META_KEY]: unlisted } } : {}) };
    }),
  );
  on.setRequestHandler(BoundedListResourcesRequestSchema, (request) =>
    refusedAsInvalidParams(() => catalog.listResources(principal, request.params?.cursor)),
  );
  on.setRequestHandler(BoundedListResourceTemplatesRequestSchema, () =>
    Promise.resolve({ resourceTemplates: TEMPLATES }),
  );
  on.setRequestHandler(BoundedReadResourceRequestSchema, (request) =>
    refusedAsInvalidParams(async () => ({ contents: [await catalog.readResource(principal, request.params.uri)] })),
  );
  on.setRequestHandler(DirectoryReadRequestSchema, (request) =>
    refusedAsInvalidParams(() => catalog.readDirectory(principal, request.params.uri, request.params.cursor)),
  );
}
