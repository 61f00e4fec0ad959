// docs/api.md#veadk-manifest: the VeADK remote-skills.json of a task's resolved skills, held against VeADK's loader rules.
import { parse } from 'yaml';
import { type RemoteSkillSource, buildRemoteSkillsManifest, remoteSkillsLoaderViolations } from '../../src/policy';

/** What VeADK's loader reads: the document as served, through JSON. */
const served = (skills: RemoteSkillSource[]): unknown => JSON.parse(JSON.stringify(buildRemoteSkillsManifest(skills)));
const entryFor = (metadata: unknown): Record<string, unknown> => {
  const doc = served([{ name: 'report-writer', description: 'Write a report.', metadata }]) as {
    remote_skills: Record<string, unknown>[];
  };
  expect(remoteSkillsLoaderViolations(doc)).toEqual([]);
  return doc.remote_skills[0];
};

const OBJECT = { type: 'object' };
const SCHEMA = {
  type: 'object',
  properties: { format: { type: 'string', enum: ['doc', 'pdf'] } },
  required: ['format'],
};

describe('input_schema: metadata.input_schema when a mapping of type object', () => {
  it.each<[string, unknown, unknown]>([
    ['a full object schema is kept', { input_schema: SCHEMA }, SCHEMA],
    ['the bare object schema', { input_schema: { type: 'object' } }, OBJECT],
    ['no metadata', undefined, OBJECT],
    ['metadata that is not a mapping', 'plain text', OBJECT],
    ['no input_schema', { display_name: 'x' }, OBJECT],
    ['a schema of another type', { input_schema: { type: 'array', items: {} } }, OBJECT],
    ['a schema without a type', { input_schema: { properties: { a: {} } } }, OBJECT],
    ['"OBJECT" is not "object"', { input_schema: { type: 'OBJECT' } }, OBJECT],
    ['a list of types', { input_schema: { type: ['object', 'null'] } }, OBJECT],
    ['a list', { input_schema: [{ type: 'object' }] }, OBJECT],
    ['a JSON text (metadata as strings)', { input_schema: '{"type": "object"}' }, OBJECT],
    ['null', { input_schema: null }, OBJECT],
    ['a number', { input_schema: 3 }, OBJECT],
  ])('%s', (_title, metadata, schema) => {
    expect(entryFor(metadata).input_schema).toEqual(schema);
  });

  it('the served schema is a copy: the stored metadata is never shared', () => {
    const metadata = { input_schema: structuredClone(SCHEMA) };
    const [entry] = buildRemoteSkillsManifest([{ name: 'a', description: 'b', metadata }]).remote_skills;
    expect(entry.input_schema).toEqual(SCHEMA);
    expect(entry.input_schema).not.toBe(metadata.input_schema);
  });
});

describe('display_name: a non-blank string, else left out', () => {
  it.each<[string, unknown, string | undefined]>([
    ['a name', 'Report writer', 'Report writer'],
    ['kept as written', ' 报告撰写 ', ' 报告撰写 '],
    ['empty', '', undefined],
    ['blank', '   ', undefined],
    ['a number', 42, undefined],
    ['a list', ['Report'], undefined],
    ['null', null, undefined],
  ])('%s', (_title, displayName, expected) => {
    const entry = entryFor({ display_name: displayName });
    expect(entry.display_name).toBe(expected);
    expect(Object.hasOwn(entry, 'display_name')).toBe(expected !== undefined);
  });
});

describe('timeout: an integer or a digit string, 1-1800, else left out', () => {
  it.each<[string, unknown, number | undefined]>([
    ['an integer', 600, 600],
    ['the lower bound', 1, 1],
    ['the upper bound', 1800, 1800],
    ['a digit string', '600', 600],
    ['a digit string with leading zeros', '0600', 600],
    ['a float that is an integer (YAML 600.0)', 600.0, 600],
    ['zero', 0, undefined],
    ['over the bound', 1801, undefined],
    ['a digit string over the bound', '1801', undefined],
    ['a huge digit string', '9'.repeat(400), undefined],
    ['negative', -5, undefined],
    ['a negative string', '-5', undefined],
    ['a fraction', 60.5, undefined],
    ['a string with a unit', '60s', undefined],
    ['a string with a space', ' 60', undefined],
    ['a string with a sign', '+60', undefined],
    ['an exponent string', '1e3', undefined],
    ['empty string', '', undefined],
    ['a boolean', true, undefined],
    ['null', null, undefined],
    ['a list', [600], undefined],
  ])('%s', (_title, timeout, expected) => {
    const entry = entryFor({ timeout });
    expect(entry.timeout).toBe(expected);
    expect(Object.hasOwn(entry, 'timeout')).toBe(expected !== undefined);
  });
});

describe('buildRemoteSkillsManifest: the whole document', () => {
  it('entries in name order, keys in the documented order, and VeADK would load it', () => {
    // Metadata as it comes out of real SKILL.md frontmatter, VikingBot and OpenClaw nesting included.
    const fm = (yaml: string): unknown => (parse(yaml, { schema: 'core' }) as { metadata?: unknown }).metadata;
    const doc = served([
      { name: 'zeta', description: 'Last.', metadata: fm('metadata:\n  timeout: "90"\n  display_name: Zeta') },
      { name: 'alpha', description: 'First.', metadata: fm('metadata: {"openclaw": {"requires": {"bins": ["jq"]}}}') },
      {
        name: 'report-writer',
        description: 'Write a technical report.',
        metadata: fm(
          'metadata:\n  display_name: 报告撰写\n  timeout: 600\n  input_schema:\n    type: object\n    properties:\n      format: {type: string, enum: [doc, pdf]}\n    required: [format]',
        ),
      },
      {
        name: 'bad-values',
        description: 'Bad metadata.',
        metadata: fm('metadata:\n  timeout: 0\n  display_name: ""\n  input_schema: {type: string}'),
      },
    ]);
    expect(remoteSkillsLoaderViolations(doc)).toEqual([]);
    expect(JSON.stringify(doc)).toBe(
      JSON.stringify({
        remote_skills: [
          { name: 'alpha', description: 'First.', input_schema: OBJECT },
          { name: 'bad-values', description: 'Bad metadata.', input_schema: OBJECT },
          {
            name: 'report-writer',
            description: 'Write a technical report.',
            input_schema: SCHEMA,
            display_name: '报告撰写',
            timeout: 600,
          },
          { name: 'zeta', description: 'Last.', input_schema: OBJECT, display_name: 'Zeta', timeout: 90 },
        ],
      }),
    );
  });

  it('no resolved skills: an empty list, which VeADK loads', () => {
    expect(served([])).toEqual({ remote_skills: [] });
    expect(remoteSkillsLoaderViolations(served([]))).toEqual([]);
  });

  it('a blank description (never stored by publish) falls back to the name', () => {
    const doc = served([{ name: 'x', description: '  ' }]);
    expect(remoteSkillsLoaderViolations(doc)).toEqual([]);
    expect(doc).toEqual({ remote_skills: [{ name: 'x', description: 'x', input_schema: OBJECT }] });
  });
});

describe("remoteSkillsLoaderViolations: every rule of VeADK's loader, each able to fail", () => {
  const good = { name: 'a', description: 'd', input_schema: { type: 'object' } };
  it.each<[string, unknown, string]>([
    ['not an object', [], 'the document is not a JSON object'],
    ['no remote_skills list', { remote_skills: {} }, '"remote_skills" is not a list'],
    ['an entry that is not an object', { remote_skills: ['a'] }, 'remote_skills[0] is not an object'],
    [
      'a missing name',
      { remote_skills: [{ ...good, name: undefined }] },
      'remote_skills[0].name is not a non-empty string',
    ],
    ['an empty name', { remote_skills: [{ ...good, name: '' }] }, 'remote_skills[0].name is not a non-empty string'],
    ['a duplicate name', { remote_skills: [good, { ...good }] }, 'remote_skills[1].name "a" is a duplicate'],
    [
      'an empty description',
      { remote_skills: [{ ...good, description: '' }] },
      'remote_skills[0].description is not a non-empty string',
    ],
    [
      'a description that is not a string',
      { remote_skills: [{ ...good, description: 5 }] },
      'remote_skills[0].description is not a non-empty string',
    ],
    [
      'no input_schema',
      { remote_skills: [{ name: 'a', description: 'd' }] },
      'remote_skills[0].input_schema is not a JSON object',
    ],
    [
      'an input_schema list',
      { remote_skills: [{ ...good, input_schema: [] }] },
      'remote_skills[0].input_schema is not a JSON object',
    ],
    [
      'an input_schema string',
      { remote_skills: [{ ...good, input_schema: '{}' }] },
      'remote_skills[0].input_schema is not a JSON object',
    ],
    ['timeout 0', { remote_skills: [{ ...good, timeout: 0 }] }, 'remote_skills[0].timeout is not an integer 1-1800'],
    [
      'timeout 1801',
      { remote_skills: [{ ...good, timeout: 1801 }] },
      'remote_skills[0].timeout is not an integer 1-1800',
    ],
    [
      'timeout as a string',
      { remote_skills: [{ ...good, timeout: '600' }] },
      'remote_skills[0].timeout is not an integer 1-1800',
    ],
    [
      'timeout as a boolean',
      { remote_skills: [{ ...good, timeout: true }] },
      'remote_skills[0].timeout is not an integer 1-1800',
    ],
    [
      'timeout as a fraction',
      { remote_skills: [{ ...good, timeout: 1.5 }] },
      'remote_skills[0].timeout is not an integer 1-1800',
    ],
    [
      'timeout_seconds 0',
      { remote_skills: [{ ...good, timeout_seconds: 0 }] },
      'remote_skills[0].timeout_seconds is not an integer 1-1800',
    ],
    [
      'a display_name number',
      { remote_skills: [{ ...good, display_name: 5 }] },
      'remote_skills[0].display_name is not a string',
    ],
  ])('%s', (_title, doc, violation) => {
    expect(remoteSkillsLoaderViolations(doc)).toContain(violation);
  });

  it('accepts the example of the VeADK documentation', () => {
    const example = {
      remote_skills: [
        {
          name: 'report_writer',
          description: '根据输入参数撰写技术报告',
          input_schema: SCHEMA,
          display_name: '报告撰写',
          timeout: 600,
        },
      ],
    };
    expect(remoteSkillsLoaderViolations(example)).toEqual([]);
  });
});
