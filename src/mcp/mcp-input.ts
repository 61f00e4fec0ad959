// The tools' inputs: zod schemas bounded as the HTTP routes bound the same values, listed as JSON
// Schema in tools/list, and checked here so that a bad input is a VALIDATION_FAILED tool result
// like every other contract error (the SDK would answer a schema violation with bare text).
import { z } from 'zod';
import { DomainError } from '../common/errors/domain-error';
import { MAX_ID } from '../common/http/id.pipe';
import { MAX_COMMAND_BYTES } from '../policy';
import { MAX_QUERY_CHARS, MAX_QUERY_WORDS, searchQueryProblems } from '../skills/search/search-query-rule';
import { MAX_TOOL_CHECK_SKILLS, MAX_TOOL_CHECK_TOOLS, MAX_TOOL_NAME_LENGTH } from '../tool-policy/dto/tool-policy.dto';

/** Search bounds of GET /api/skills/search: `limit` 1-50, `min_score` 0-1 (the query: searchQueryProblems). */
export const SEARCH_MAX_LIMIT = 50;
/** Skill names in selections are 1-64 characters (docs/limits.md#bounds). */
const MAX_SKILL_NAME = 64;
/** Manifest paths are at most 512 bytes by default and never over 4,096 (MAX_PATH_BYTES). */
const MAX_FILE_PATH = 4096;

const id = (field: string, description: string) => {
  const error = `${field} must be a positive 32-bit integer`;
  return z.number({ error }).int({ error }).min(1, { error }).max(MAX_ID, { error }).describe(description);
};

const text = (field: string, min: number, max: number, description: string) => {
  const error = `${field} must be a string of ${min}-${max} characters`;
  return z.string({ error }).min(min, { error }).max(max, { error }).describe(description);
};

const version = id(
  'version',
  'A version number; omit it for the latest version (with a task token: the version the task resolves to)',
).optional();

export const TASK_SKILLS_INPUT = z.strictObject({
  task_id: id('task_id', 'The task id (a task token may only name its own task)'),
});

export const MANIFEST_INPUT = z.strictObject({
  skill_id: id('skill_id', 'The skill id, e.g. skill_refs[name].skill_id from get_task_skills'),
  version,
});

export const FILE_INPUT = z.strictObject({
  skill_id: id('skill_id', 'The skill id'),
  path: text('path', 1, MAX_FILE_PATH, 'A path exactly as the manifest lists it, e.g. references/forms.md'),
  version,
});

export const FIND_INPUT = z.strictObject({
  query: z
    .string({ error: 'query must be a string' })
    .superRefine((query, ctx) => {
      for (const message of searchQueryProblems(query, 'query')) ctx.addIssue({ code: 'custom', message });
    })
    .meta({ minLength: 1, maxLength: MAX_QUERY_CHARS })
    .describe(
      'What the skill should do, in a few words, e.g. "fill a pdf form": at most ' +
        `${MAX_QUERY_CHARS} characters and ${MAX_QUERY_WORDS} distinct words after Unicode normalisation (NFKC)`,
    ),
  limit: z
    .number({ error: `limit must be an integer from 1 to ${SEARCH_MAX_LIMIT}` })
    .int({ error: `limit must be an integer from 1 to ${SEARCH_MAX_LIMIT}` })
    .min(1, { error: `limit must be an integer from 1 to ${SEARCH_MAX_LIMIT}` })
    .max(SEARCH_MAX_LIMIT, { error: `limit must be an integer from 1 to ${SEARCH_MAX_LIMIT}` })
    .describe('At most this many results (default 8)')
    .optional(),
  min_score: z
    .number({ error: 'min_score must be a number from 0 to 1' })
    .min(0, { error: 'min_score must be a number from 0 to 1' })
    .max(1, { error: 'min_score must be a number from 0 to 1' })
    .describe('Leave out results scoring below this (0-1, default 0.35)')
    .optional(),
});

const names = (field: string, maxItems: number, maxLength: number, description: string) =>
  z
    .array(
      z.string({ error: `each of ${field} must be a string` }).max(maxLength, {
        error: `each of ${field} must be at most ${maxLength} characters`,
      }),
      { error: `${field} must be a list of strings` },
    )
    .max(maxItems, { error: `${field} must contain no more than ${maxItems} elements` })
    .describe(description)
    .optional();

export const CHECK_TOOLS_INPUT = z.strictObject({
  task_id: id('task_id', 'The task id (a task token may only name its own task)'),
  skills: names(
    'skills',
    MAX_TOOL_CHECK_SKILLS,
    MAX_SKILL_NAME,
    "The active skills: names from the task's skills; default: its preload_skills",
  ),
  tools: names(
    'tools',
    MAX_TOOL_CHECK_TOOLS,
    MAX_TOOL_NAME_LENGTH,
    'The tools you have; visible_tools then keeps those the skills allow, in this order',
  ),
  call: z
    .strictObject(
      {
        tool: text('call.tool', 1, MAX_TOOL_NAME_LENGTH, 'The tool you are about to call, e.g. Bash'),
        command: z
          .string({ error: 'call.command must be a string' })
          .max(MAX_COMMAND_BYTES, { error: `call.command must be at most ${MAX_COMMAND_BYTES} bytes of UTF-8` })
          .describe('Its command or argument, e.g. "git status"')
          .optional(),
      },
      { error: 'call must be an object {tool, command?}' },
    )
    .describe('A call to check against every active skill')
    .optional(),
});

type Strict = z.ZodObject;

/**
 * The schema tools/list shows for `schema`, taking any object: the SDK validates arguments against
 * the registered schema and answers a violation with bare text, so the tool validates them itself
 * (parseInput) and answers VALIDATION_FAILED with the structured error every contract error has.
 */
export function listedAs(schema: Strict): z.ZodObject {
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { io: 'input', target: 'draft-07' });
  return z.looseObject({}).meta(jsonSchema);
}

function issueMessage(issue: z.core.$ZodIssue): string[] {
  const at = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `property ${at ? `${at}.` : ''}${key} should not exist`);
  }
  return [issue.message];
}

/** The arguments as `schema` reads them, or 400-style VALIDATION_FAILED listing every problem. */
export function parseInput<S extends Strict>(schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  throw DomainError.validation([...new Set(parsed.error.issues.flatMap(issueMessage))]);
}
