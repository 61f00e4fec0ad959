// The policy module's answers as response DTOs, field by field.
import type { RemoteSkillsManifest, ToolCheckAnswer } from '../policy';
import { RemoteSkillDto, RemoteSkillsDto, ToolCheckAnswerDto } from './dto/tool-policy.dto';

export function toToolCheckAnswerDto(answer: ToolCheckAnswer): ToolCheckAnswerDto {
  const dto: ToolCheckAnswerDto = {
    skills: answer.skills.map((s) => ({
      name: s.name,
      skill_id: s.skill_id,
      version: s.version,
      allowed_tools: s.allowed_tools,
    })),
    visible_tools: answer.visible_tools,
    requires: { bins: answer.requires.bins, env: answer.requires.env },
  };
  if (answer.call) {
    dto.call = { allowed: answer.call.allowed, code: answer.call.code, denied_by: answer.call.denied_by };
  }
  return dto;
}

export function toRemoteSkillsDto(manifest: RemoteSkillsManifest): RemoteSkillsDto {
  return {
    remote_skills: manifest.remote_skills.map((entry) => {
      const dto: RemoteSkillDto = {
        name: entry.name,
        description: entry.description,
        input_schema: entry.input_schema,
      };
      if (entry.display_name !== undefined) dto.display_name = entry.display_name;
      if (entry.timeout !== undefined) dto.timeout = entry.timeout;
      return dto;
    }),
  };
}
