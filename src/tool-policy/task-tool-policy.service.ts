// The tool policy of a task's resolved set (CONTRACT §7.3, §9.2): both answers are computed by the
// pure policy module over the resolution the task-skills route serves, so they can never disagree.
import { Injectable } from '@nestjs/common';
import { Principal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { ifNoneMatchHits } from '../common/http/etag';
import { buildRemoteSkillsManifest, toolCheck } from '../policy';
import { ResolutionFactsRepository, versionKey } from '../selection-facts/resolution-facts.repository';
import { RemoteSkillsDto, ToolCheckAnswerDto, ToolCheckBody } from './dto/tool-policy.dto';
import { toRemoteSkillsDto, toToolCheckAnswerDto } from './tool-policy.mapper';
import { TaskResolutionService } from '../resolution/task-resolution.service';

export type RemoteSkillsAnswer =
  { notModified: true; fingerprint: string } | { notModified: false; fingerprint: string; document: RemoteSkillsDto };

@Injectable()
export class TaskToolPolicyService {
  constructor(
    private readonly resolution: TaskResolutionService,
    private readonly facts: ResolutionFactsRepository,
  ) {}

  /** §7.3 over the task's resolved set: a preload ref where the name has one, else its skill ref. */
  async toolCheck(principal: Principal, taskId: number, body: ToolCheckBody): Promise<ToolCheckAnswerDto> {
    const resolution = await this.resolution.resolve(principal, taskId);
    const resolved = { ...resolution.skill_refs, ...resolution.preload_skill_refs };
    const call = body.call && { tool: body.call.tool, command: body.call.command };
    const outcome = toolCheck(resolved, resolution.preload_skills, { skills: body.skills, tools: body.tools, call });
    if (!outcome.ok) {
      const { code, message, details } = outcome.rejection;
      throw new DomainError(code, [message], details);
    }
    return toToolCheckAnswerDto(outcome.answer);
  }

  /**
   * §9.2: VeADK's remote-skills.json of the task's `skill_refs`. The document depends only on the
   * versions the refs name (immutable), so the task's fingerprint is its entity tag.
   */
  async remoteSkills(principal: Principal, taskId: number, ifNoneMatch?: string): Promise<RemoteSkillsAnswer> {
    const known = ifNoneMatch ? this.resolution.knownFingerprint(principal, taskId) : undefined;
    if (known && ifNoneMatchHits(ifNoneMatch, known)) return { notModified: true, fingerprint: known };
    const resolution = await this.resolution.resolve(principal, taskId);
    const { fingerprint } = resolution;
    if (ifNoneMatchHits(ifNoneMatch, fingerprint)) return { notModified: true, fingerprint };
    const refs = Object.entries(resolution.skill_refs);
    const summaries = await this.facts.loadVersionSummaries(refs.map(([, ref]) => ref));
    const manifest = buildRemoteSkillsManifest(
      refs.map(([name, ref]) => {
        const summary = summaries.get(versionKey(ref.skill_id, ref.version));
        return { name, description: summary?.description ?? '', metadata: summary?.metadata };
      }),
    );
    return { notModified: false, fingerprint, document: toRemoteSkillsDto(manifest) };
  }
}
