import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ResolutionModule } from '../resolution/resolution.module';
import { SkillDownloadsModule } from '../skill-downloads/skill-downloads.module';
import { SkillDownloadsService } from '../skill-downloads/skill-downloads.service';
import { SkillsModule } from '../skills/skills.module';
import { SkillsSearchService } from '../skills/skills-search.service';
import { ToolPolicyModule } from '../tool-policy/tool-policy.module';
import { McpController } from './mcp.controller';
import { McpEndpoint } from './mcp-endpoint.service';
import { McpHostOriginMiddleware } from './mcp-host-origin.middleware';
import { McpSkillCatalogRepository } from './mcp-skill-catalog.repository';
import { McpSkillCatalog } from './mcp-skill-catalog.service';
import {
  MCP_SKILL_FILES,
  MCP_SKILL_MANIFESTS,
  MCP_SKILL_SEARCH,
  McpSources,
  SkillFileSource,
  SkillManifestSource,
  SkillSearchSource,
} from './mcp-sources';
import { McpTools } from './mcp-tools.service';

/** The manifest and single files as their routes serve them: users, and tokens for their resolved set. */
function manifests(downloads: SkillDownloadsService): SkillManifestSource {
  return { manifest: (principal, skillId, version) => downloads.manifest(principal, skillId, version) };
}

function files(downloads: SkillDownloadsService): SkillFileSource {
  return {
    async open(principal, skillId, path, version) {
      const file = await downloads.openFile(principal, skillId, path, version);
      return {
        skill_id: skillId,
        version: file.version,
        path,
        size: file.size,
        sha256: file.etag.replace(/^sha256:/, ''),
        content_type: file.contentType,
        stream: file.stream,
      };
    },
  };
}

/** `GET /api/skills/search`: the service the route calls, with the bounds the tool's schema checked. */
function search(service: SkillsSearchService): SkillSearchSource {
  return { search: (caller, input) => service.find(caller, input) };
}

@Module({
  imports: [SkillsModule, ResolutionModule, ToolPolicyModule, SkillDownloadsModule],
  controllers: [McpController],
  providers: [
    McpEndpoint,
    McpTools,
    McpSources,
    McpSkillCatalogRepository,
    McpSkillCatalog,
    { provide: MCP_SKILL_MANIFESTS, useFactory: manifests, inject: [SkillDownloadsService] },
    { provide: MCP_SKILL_FILES, useFactory: files, inject: [SkillDownloadsService] },
    { provide: MCP_SKILL_SEARCH, useFactory: search, inject: [SkillsSearchService] },
  ],
})
export class McpModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(McpHostOriginMiddleware).forRoutes(McpController);
  }
}
