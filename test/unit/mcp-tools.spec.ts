// The MCP tools' pure parts: inputs checked into VALIDATION_FAILED messages, the schema tools/list
// shows, and the text renderings beside structuredContent.
import { z } from 'zod';
import { DomainError } from '../../src/common/errors/domain-error';
import {
  CHECK_TOOLS_INPUT,
  FILE_INPUT,
  FIND_INPUT,
  listedAs,
  MANIFEST_INPUT,
  parseInput,
  TASK_SKILLS_INPUT,
} from '../../src/mcp/mcp-input';
import { taskSkillsText, toolCheckText } from '../../src/mcp/mcp-text';

function problems(schema: z.ZodObject, args: unknown): string[] | 'ok' {
  try {
    parseInput(schema, args);
    return 'ok';
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== 'VALIDATION_FAILED') throw err;
    return err.body as string[];
  }
}

describe('MCP tool inputs', () => {
  const ID = 'task_id must be a positive 32-bit integer';
  it.each<[string, z.ZodObject, unknown, string[] | 'ok']>([
    ['an id', TASK_SKILLS_INPUT, { task_id: 12 }, 'ok'],
    ['the largest id', TASK_SKILLS_INPUT, { task_id: 2_147_483_647 }, 'ok'],
    ['no arguments at all', TASK_SKILLS_INPUT, undefined, [ID]],
    ['id 0', TASK_SKILLS_INPUT, { task_id: 0 }, [ID]],
    ['an id past 32 bits', TASK_SKILLS_INPUT, { task_id: 2_147_483_648 }, [ID]],
    ['an id as a string', TASK_SKILLS_INPUT, { task_id: '12' }, [ID]],
    ['a fractional id', TASK_SKILLS_INPUT, { task_id: 1.5 }, [ID]],
    ['null', TASK_SKILLS_INPUT, { task_id: null }, [ID]],
    [
      'unknown keys',
      TASK_SKILLS_INPUT,
      { task_id: 1, a: 1, b: 2 },
      ['property a should not exist', 'property b should not exist'],
    ],
    ['a version', MANIFEST_INPUT, { skill_id: 1, version: 3 }, 'ok'],
    ['version 0', MANIFEST_INPUT, { skill_id: 1, version: 0 }, ['version must be a positive 32-bit integer']],
    ['a path', FILE_INPUT, { skill_id: 1, path: 'references/a b.md' }, 'ok'],
    ['an empty path', FILE_INPUT, { skill_id: 1, path: '' }, ['path must be a string of 1-4096 characters']],
    ['a query', FIND_INPUT, { query: 'pdf', limit: 50, min_score: 0 }, 'ok'],
    [
      'an empty query',
      FIND_INPUT,
      { query: '' },
      ['query must be 1-256 characters after Unicode normalisation (NFKC) and lower-casing'],
    ],
    [
      'a query of 257 characters',
      FIND_INPUT,
      { query: 'q'.repeat(257) },
      ['query must be 1-256 characters after Unicode normalisation (NFKC) and lower-casing; it has 257'],
    ],
    [
      'a query of 43 x U+3316 (258 characters after NFKC)',
      FIND_INPUT,
      { query: '\u3316'.repeat(43) },
      ['query must be 1-256 characters after Unicode normalisation (NFKC) and lower-casing; it has 258'],
    ],
    [
      'a query of 17 words',
      FIND_INPUT,
      { query: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') },
      ['query must hold at most 16 distinct words after normalisation; it has 17'],
    ],
    [
      'limit 0 and min_score 1.5',
      FIND_INPUT,
      { query: 'a', limit: 0, min_score: 1.5 },
      ['limit must be an integer from 1 to 50', 'min_score must be a number from 0 to 1'],
    ],
    [
      'a whole tool check',
      CHECK_TOOLS_INPUT,
      { task_id: 1, skills: ['a'], tools: ['Read'], call: { tool: 'Bash', command: 'ls' } },
      'ok',
    ],
    [
      'skills: null is not absent',
      CHECK_TOOLS_INPUT,
      { task_id: 1, skills: null },
      ['skills must be a list of strings'],
    ],
    [
      '257 skills',
      CHECK_TOOLS_INPUT,
      { task_id: 1, skills: Array(257).fill('a') },
      ['skills must contain no more than 256 elements'],
    ],
    [
      'a skill name of 65 characters',
      CHECK_TOOLS_INPUT,
      { task_id: 1, skills: ['a'.repeat(65)] },
      ['each of skills must be at most 64 characters'],
    ],
    [
      'a call without its tool, with a stray key',
      CHECK_TOOLS_INPUT,
      { task_id: 1, call: { cmd: 'ls' } },
      ['call.tool must be a string of 1-256 characters', 'property call.cmd should not exist'],
    ],
    [
      'a command over 16 KiB of characters',
      CHECK_TOOLS_INPUT,
      { task_id: 1, call: { tool: 'Bash', command: 'x'.repeat(16_385) } },
      ['call.command must be at most 16384 bytes of UTF-8'],
    ],
  ])('%s', (_, schema, args, expected) => {
    expect(problems(schema, args)).toEqual(expected);
  });

  it('lists the query as 1-256 characters', () => {
    const { properties } = z.toJSONSchema(FIND_INPUT, { io: 'input', target: 'draft-07' });
    expect(properties?.query).toEqual(expect.objectContaining({ type: 'string', minLength: 1, maxLength: 256 }));
  });

  it('tools/list shows the checked schema, while the SDK passes any object through', () => {
    for (const schema of [TASK_SKILLS_INPUT, MANIFEST_INPUT, FILE_INPUT, FIND_INPUT, CHECK_TOOLS_INPUT]) {
      const listed = listedAs(schema);
      const { $schema: _a, ...strict } = z.toJSONSchema(schema, { io: 'input', target: 'draft-07' });
      const { $schema: _b, ...shown } = z.toJSONSchema(listed, { io: 'input', target: 'draft-07' });
      expect(shown).toEqual(strict);
      expect(listed.safeParse({ anything: [1, 2] }).success).toBe(true);
    }
  });
});

describe('MCP text renderings', () => {
  const ref = (skill_id: number, version: number, allowed_tools: string[] | null, pinned = false) => ({
    skill_id,
    namespace: 'team-a',
    is_public: false,
    version,
    content_hash: `sha256:${skill_id}`,
    pinned,
    tag: null,
    status: 'active' as const,
    allowed_tools,
    requires: { bins: skill_id === 1 ? ['git'] : [], env: [] },
  });

  it('lists every name of a task: its ref (the preload one first), its policy, or why it is unresolved', () => {
    const text = taskSkillsText({
      task_id: 12,
      team_id: 3,
      team_namespace: 'team-a',
      skills: ['audit', 'gone', 'notes'],
      preload_skills: ['audit'],
      skill_refs: { audit: ref(1, 3, ['Read']), notes: { ...ref(2, 1, null, true), is_public: true } },
      preload_skill_refs: { audit: ref(1, 2, ['Read'], true) },
      unresolved: [{ name: 'gone', source: 'ghost', reason: 'DELETED' }],
      fingerprint: 'sha256:f',
    });
    expect(text.split('\n')).toEqual([
      'Task 12 (team 3, namespace team-a): 3 skills, 1 to preload, 1 unresolved.',
      '- audit [preload]: skill 1 v2 (pinned), group team-a; skill_refs: v3; tools Read; requires bins git',
      '- gone: unresolved (DELETED, from the ghost)',
      '- notes: skill 2 v1 (pinned), public; any tool',
      'fingerprint sha256:f',
      "Read a skill's SKILL.md and file list with get_skill_manifest {skill_id, version}.",
    ]);
  });

  it('says why a call is refused, and that nothing restricts when no skill does', () => {
    const base = { skills: [], requires: { bins: [], env: [] } };
    expect(toolCheckText({ ...base, visible_tools: null })).toBe(
      'Active skills: none\nVisible tools: any tool (no active skill restricts tools)',
    );
    expect(
      toolCheckText({
        ...base,
        visible_tools: [],
        call: { allowed: false, code: 'TOOL_NOT_ALLOWED', denied_by: [] },
      }),
    ).toBe(
      'Active skills: none\nVisible tools: none\nThe call is refused: TOOL_NOT_ALLOWED (not among the tools sent).',
    );
  });
});
