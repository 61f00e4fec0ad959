import { Module } from '@nestjs/common';
import type { Principal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { ResolutionModule } from '../resolution/resolution.module';
import { SkillsModule } from '../skills/skills.module';
import { SkillsReadService } from '../skills/skills-read.service';
import { McpController } from './mcp.controller';
import { McpEndpoint } from './mcp-endpoint.service';
import { MCP_SKILL_MANIFESTS, McpSources, SkillManifestSource } from './mcp-sources';
import { McpTools } from './mcp-tools.service';

/**
 * The manifest as `GET /api/skills/{id}/manifest` serves it: to users. Task tokens get that
 * route's answer to them, 404, until it serves their resolved set (CONTRACT §2 item 4).
 */
function manifestRoute(reads: SkillsReadService): SkillManifestSource {
  return {
    manifest: (principal: Principal, skillId: number, version: number | undefined) =>
      principal.kind === 'user' ? reads.manifest(principal, skillId, version) : Promise.reject(DomainError.notFound()),
  };
}

@Module({
  imports: [SkillsModule, ResolutionModule],
  controllers: [McpController],
  providers: [
    McpEndpoint,
    McpTools,
    McpSources,
    { provide: MCP_SKILL_MANIFESTS, useFactory: manifestRoute, inject: [SkillsReadService] },
  ],
})
export class McpModule {}
