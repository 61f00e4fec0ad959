import { resolutionJson, Resolution } from '../resolver';
import { ExecutionRequestDto, TaskSkillsDto } from './dto/resolution.dto';

/** docs/resolution.md#output, field by field (the resolver's `user_selected_skills` is not part of it). */
export function toTaskSkillsDto(r: Resolution): TaskSkillsDto {
  return {
    task_id: r.task_id,
    team_id: r.team_id,
    team_namespace: r.team_namespace,
    skills: r.skills,
    preload_skills: r.preload_skills,
    skill_refs: r.skill_refs,
    preload_skill_refs: r.preload_skill_refs,
    unresolved: r.unresolved,
    fingerprint: r.fingerprint,
  };
}

/**
 * `JSON.stringify(toTaskSkillsDto(r))`, byte for byte, with the parts the resolver wrote as it made
 * them (each ref once for every answer that shares it: a team's ghosts decide once for all its tasks).
 */
export function taskSkillsJson(r: Resolution): string {
  const dto = toTaskSkillsDto(r);
  let out = '';
  for (const key of Object.keys(dto) as Array<keyof TaskSkillsDto>) {
    out += `${out ? ',' : ''}${JSON.stringify(key)}:${resolutionJson(dto[key])}`;
  }
  return `{${out}}`;
}

/** docs/resolution.md#executionrequest: `skill_names` is the resolved `skills`. */
export function toExecutionRequestDto(r: Resolution): ExecutionRequestDto {
  return {
    task_id: r.task_id,
    team_id: r.team_id,
    team_namespace: r.team_namespace,
    skill_names: r.skills,
    preload_skills: r.preload_skills,
    user_selected_skills: r.user_selected_skills,
    skill_refs: r.skill_refs,
    preload_skill_refs: r.preload_skill_refs,
    unresolved: r.unresolved,
    fingerprint: r.fingerprint,
  };
}
