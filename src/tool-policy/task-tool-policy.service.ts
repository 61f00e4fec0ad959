// The tool policy of a task's resolved set (docs/tool-policy.md#tool-check, and VeADK's document):
// both answers are computed by the pure policy module over the resolution the task-skills route
// serves, so they can never disagree.
import { Inject, Injectable } from '@nestjs/common';
import { Principal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { ifNoneMatchHits } from '../common/http/etag';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { buildRemoteSkillsManifest, CompiledPolicyCache, toolCheckSteps } from '../policy';
import { ResolutionFactsRepository, versionKey } from '../selection-facts/resolution-facts.repository';
import { RemoteSkillsDto, ToolCheckAnswerDto, ToolCheckBody } from './dto/tool-policy.dto';
import { toRemoteSkillsDto, toToolCheckAnswerDto } from './tool-policy.mapper';
import { TaskResolutionService } from '../resolution/task-resolution.service';
import { SharedTurns } from '../common/shared-turns';

/**
 * How long the checks running at once may run, together, in one turn of the event loop, before
 * they let other work in (a slice of a check is far shorter).
 */
const RUN_FOR_MS = 2;

export type RemoteSkillsAnswer =
  { notModified: true; fingerprint: string } | { notModified: false; fingerprint: string; document: RemoteSkillsDto };

@Injectable()
export class TaskToolPolicyService {
  /** Versions are immutable, so each one's allowed-tools is compiled once. */
  private readonly compiled: CompiledPolicyCache;
  private readonly matchBudget: number;
  /** Every check in flight takes its slices from this one queue (docs/tool-policy.md#budget). */
  private readonly turns = new SharedTurns(RUN_FOR_MS);

  constructor(
    private readonly resolution: TaskResolutionService,
    private readonly facts: ResolutionFactsRepository,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.compiled = new CompiledPolicyCache(config.toolPolicy.cacheEntries);
    this.matchBudget = config.toolPolicy.matchBudget;
  }

  /**
   * tool-check over the task's resolved set: a preload ref where the name has one, else its skill
   * ref. The matching gives the event loop back between its slices, so concurrent checks and every
   * other request keep being answered.
   */
  async toolCheck(principal: Principal, taskId: number, body: ToolCheckBody): Promise<ToolCheckAnswerDto> {
    const resolution = await this.resolution.resolve(principal, taskId);
    const resolved = { ...resolution.skill_refs, ...resolution.preload_skill_refs };
    const call = body.call && { tool: body.call.tool, command: body.call.command };
    const steps = toolCheckSteps(
      resolved,
      resolution.preload_skills,
      { skills: body.skills, tools: body.tools, call },
      {
        matchBudget: this.matchBudget,
        compile: (ref) =>
          this.compiled.get(`${ref.skill_id}:${ref.version}:${ref.content_hash ?? ''}`, ref.allowed_tools),
      },
    );
    // The first slice runs in a later turn: requests that arrived together were parsed in one.
    const outcome = await this.turns.run(steps);
    if (!outcome.ok) {
      const { code, message, details } = outcome.rejection;
      throw new DomainError(code, [message], details);
    }
    return toToolCheckAnswerDto(outcome.answer);
  }

  /**
   * docs/api.md#veadk-manifest: VeADK's remote-skills.json of the task's `skill_refs`. The document depends only on the
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
