import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { BlobMaintenanceModule } from './blob-maintenance/blob-maintenance.module';
import { BotsModule } from './bots/bots.module';
import { GhostsModule } from './ghosts/ghosts.module';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';
import { TasksModule } from './tasks/tasks.module';
import { TeamsModule } from './teams/teams.module';
import { CacheModule } from './cache/cache.module';
import { ErrorFilter } from './common/errors/error.filter';
import { createValidationPipe } from './common/http/validation.pipe';
import { AppLogger } from './common/logging/app-logger';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { buildDataSourceOptions } from './schema/typeorm-options';
import { GroupsModule } from './groups/groups.module';
import { GitSourcesModule } from './git-sources/git-sources.module';
import { HealthModule } from './health/health.module';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { ResolutionModule } from './resolution/resolution.module';
import { SkillBindingsModule } from './skill-bindings/skill-bindings.module';
import { SkillDownloadsModule } from './skill-downloads/skill-downloads.module';
import { SkillsModule } from './skills/skills.module';
import { StorageModule } from './storage/storage.module';
import { ToolPolicyModule } from './tool-policy/tool-policy.module';
import { UsersModule } from './users/users.module';
import { WellKnownModule } from './well-known/well-known.module';

@Module({})
export class AppModule {
  /**
   * `databaseUrl` is the configured server or the embedded one started by the caller;
   * `listenForChanges` when other processes may write to it (a server).
   */
  static forRoot(config: AppConfig, logger: AppLogger, databaseUrl: string, listenForChanges: boolean): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config, logger),
        CacheModule.forRoot(listenForChanges ? databaseUrl : null),
        TypeOrmModule.forRoot({
          ...buildDataSourceOptions({ url: databaseUrl, poolSize: config.dbPoolSize, limits: config.dbLimits }),
          retryAttempts: 3,
          retryDelay: 1000,
        }),
        MetricsModule,
        StorageModule,
        AuthModule,
        UsersModule,
        GroupsModule,
        HealthModule,
        // Express tries the routes in the order they were registered, one regular expression each:
        // the hottest route (task skills, and its 304) comes right after the liveness probe.
        ResolutionModule,
        SkillsModule,
        GhostsModule,
        BotsModule,
        TeamsModule,
        SubscriptionsModule,
        TasksModule,
        SkillBindingsModule,
        ToolPolicyModule,
        SkillDownloadsModule,
        GitSourcesModule,
        AuditModule,
        BlobMaintenanceModule,
        McpModule,
        WellKnownModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
