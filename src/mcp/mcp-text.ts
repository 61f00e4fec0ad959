// The short text each tool result carries next to its structuredContent: what a model needs to
// take the next step (ids, versions, verdicts), for clients that show it only the text.
import type { ToolCheckAnswerDto } from '../tool-policy/dto/tool-policy.dto';
import type { SkillRefDto, TaskSkillsDto } from '../resolution/dto/resolution.dto';
import type { RequiresDto } from '../skills/dto/skill.dto';
import type { SkillManifest, SkillSearchAnswer } from './mcp-sources';

/** Files listed by name in a manifest's text; the rest are counted. */
const LISTED_FILES = 50;
/** A search hit's description is cut to this many characters in the text. */
const DESCRIPTION_CHARS = 200;

function scope(ref: { namespace: string; is_public: boolean }): string {
  if (ref.is_public) return 'public';
  return ref.namespace === 'default' ? 'personal' : `group ${ref.namespace}`;
}

function tools(allowed: string[] | null): string {
  if (allowed === null) return 'any tool';
  return allowed.length ? `tools ${allowed.join(' ')}` : 'no tools';
}

function requirements(requires: RequiresDto): string | null {
  const parts = [
    requires.bins.length ? `bins ${requires.bins.join(', ')}` : '',
    requires.env.length ? `env ${requires.env.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : null;
}

function refText(ref: SkillRefDto): string {
  return `skill ${ref.skill_id} v${ref.version}${ref.pinned ? ' (pinned)' : ''}, ${scope(ref)}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function taskSkillsText(r: TaskSkillsDto): string {
  const unresolved = new Map(r.unresolved.map((u) => [u.name, u]));
  const preload = new Set(r.preload_skills);
  const lines = [
    `Task ${r.task_id} (team ${r.team_id}, namespace ${r.team_namespace}): ${plural(r.skills.length, 'skill')}, ` +
      `${r.preload_skills.length} to preload, ${r.unresolved.length} unresolved.`,
  ];
  for (const name of r.skills) {
    const missing = unresolved.get(name);
    if (missing) {
      lines.push(`- ${name}: unresolved (${missing.reason}, from the ${missing.source})`);
      continue;
    }
    const ref = r.preload_skill_refs[name] ?? r.skill_refs[name];
    const other = r.preload_skill_refs[name] && r.skill_refs[name];
    const also = other && other.version !== ref.version ? `; skill_refs: v${other.version}` : '';
    const needs = requirements(ref.requires);
    lines.push(
      `- ${name}${preload.has(name) ? ' [preload]' : ''}: ${refText(ref)}${also}; ${tools(ref.allowed_tools)}` +
        (needs ? `; requires ${needs}` : ''),
    );
  }
  lines.push(`fingerprint ${r.fingerprint}`);
  if (r.skills.length > r.unresolved.length) {
    lines.push("Read a skill's SKILL.md and file list with get_skill_manifest {skill_id, version}.");
  }
  return lines.join('\n');
}

export function manifestText(m: SkillManifest): string {
  const needs = requirements(m.requires);
  const files = m.files.slice(0, LISTED_FILES).map((f) => `${f.path} (${f.size} B)`);
  if (m.files.length > LISTED_FILES) files.push(`and ${m.files.length - LISTED_FILES} more`);
  const lines = [
    `${m.name} v${m.version} (skill ${m.skill_id}, ${scope(m)}), ${plural(m.files.length, 'file')}, ` +
      `content_hash ${m.content_hash}`,
    `${tools(m.allowed_tools)}${needs ? `; requires ${needs}` : ''}`,
    `files: ${files.join(', ')}`,
  ];
  if (typeof m.skill_md === 'string') lines.push('', m.skill_md);
  return lines.join('\n');
}

export function searchText(answer: SkillSearchAnswer): string {
  if (!answer.items.length) return `No skill matches "${answer.query}".`;
  const lines = [`${plural(answer.items.length, 'skill')} match "${answer.query}":`];
  for (const hit of answer.items) {
    const description =
      hit.description.length > DESCRIPTION_CHARS ? `${hit.description.slice(0, DESCRIPTION_CHARS)}…` : hit.description;
    lines.push(
      `- ${hit.name} (skill ${hit.skill_id} v${hit.version}, ${scope(hit)}, score ${hit.score}): ${description}`,
    );
  }
  lines.push('Read one with get_skill_manifest {skill_id}.');
  return lines.join('\n');
}

export function toolCheckText(answer: ToolCheckAnswerDto): string {
  const active = answer.skills.map((s) => `${s.name} (skill ${s.skill_id} v${s.version}, ${tools(s.allowed_tools)})`);
  const visible =
    answer.visible_tools === null ? 'any tool (no active skill restricts tools)' : answer.visible_tools.join(', ');
  const lines = [`Active skills: ${active.length ? active.join('; ') : 'none'}`, `Visible tools: ${visible || 'none'}`];
  const needs = requirements(answer.requires);
  if (needs) lines.push(`Together they require ${needs}`);
  if (answer.call) {
    const { allowed, code, denied_by: deniedBy } = answer.call;
    const by = deniedBy.length ? `by ${deniedBy.join(', ')}` : '(not among the tools sent)';
    lines.push(allowed ? 'The call is allowed.' : `The call is refused: ${code} ${by}.`);
  }
  return lines.join('\n');
}
