// Builds the application exactly as production runs it; main.ts and the e2e tests both call this.
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module';
import { API_PREFIX } from './common/http/api-prefix';
import { applyHttpLimits } from './common/http/http-limits';
import { jsonBodyMiddleware, queryHygieneMiddleware } from './common/http/json-body';
import { requestIdMiddleware } from './common/http/request-id.middleware';
import { AppLogger } from './common/logging/app-logger';
import { createOpenApiDocument, SWAGGER_UI_OPTIONS } from './common/openapi/openapi-document';
import { AppConfig } from './config/app-config';
import { runMigrations, withBootLock } from './database/migrate';
import { httpMetricsMiddleware } from './common/metrics/http-metrics.middleware';
import { MetricsService } from './common/metrics/metrics.service';
import { buildDataSourceOptions } from './schema/typeorm-options';
import { DatabaseBytesMove } from './storage/database-bytes-move';
import { AdminBootstrap } from './users/admin-bootstrap.service';
import { WELL_KNOWN_PREFIX_EXCLUSIONS } from './well-known/well-known.routes';

export function buildOpenApiDocument(app: NestExpressApplication): OpenAPIObject {
  return createOpenApiDocument(app, API_PREFIX);
}

export function setupApp(app: NestExpressApplication, logger: AppLogger): void {
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(httpMetricsMiddleware(app.get(MetricsService)));
  app.use(requestIdMiddleware(logger));
  app.use(queryHygieneMiddleware());
  app.use(jsonBodyMiddleware());
  app.setGlobalPrefix(API_PREFIX, { exclude: WELL_KNOWN_PREFIX_EXCLUSIONS });
  // Built on the first request for it, not at boot (about 0.3 s of every start).
  SwaggerModule.setup(`${API_PREFIX}/docs`, app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: `${API_PREFIX}/docs-json`,
    customSiteTitle: 'skill-resolver API',
    swaggerOptions: SWAGGER_UI_OPTIONS,
  });
}

export interface CreateAppOptions {
  databaseUrl: string;
  logger: AppLogger;
  /** Hear writes made by other processes (a shared server); defaults to `config.databaseUrl` being set. */
  listenForChanges?: boolean;
}

/** Connects, migrates (once across replicas), installs the first admin and sets the app up. */
export async function createApp(
  config: AppConfig,
  { databaseUrl, logger, listenForChanges = config.databaseUrl !== undefined }: CreateAppOptions,
): Promise<NestExpressApplication> {
  const module = AppModule.forRoot(config, logger, databaseUrl, listenForChanges);
  const app = await NestFactory.create<NestExpressApplication>(module, {
    logger,
    bodyParser: false,
    abortOnError: false,
  });
  // On the server Nest created, so main.ts and the tests (listening or through supertest) get them.
  applyHttpLimits(app.getHttpServer(), config.http);
  app.set('trust proxy', config.trustProxy);
  try {
    // Migrations may run long, and replicas wait for each other's: not under the serving pool's time limits.
    const boot = new DataSource(buildDataSourceOptions({ url: databaseUrl, poolSize: 2 }));
    await boot.initialize();
    try {
      await withBootLock(boot, async () => {
        const applied = await runMigrations(boot);
        if (applied.length) logger.write('info', 'migrations applied', { migrations: applied.map((m) => m.name) });
        await app.get(AdminBootstrap).run();
        await app.get(DatabaseBytesMove).run();
      });
    } finally {
      await boot.destroy();
    }
    setupApp(app, logger);
    await app.init();
    return app;
  } catch (err) {
    await app.close();
    throw err;
  }
}
