// Regenerates openapi.json from the app (on a throwaway in-memory embedded database).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, buildOpenApiDocument } from '../src/app.setup';
import { AppLogger } from '../src/common/logging/app-logger';
import { loadConfig } from '../src/config/app-config';
import { startEmbeddedPostgres } from '../src/database/embedded-postgres';

async function main(): Promise<void> {
  const embedded = await startEmbeddedPostgres({ maxConnections: 8 });
  try {
    const config = loadConfig({ ADMIN_API_KEY: 'openapi-generation-key-0000000000', DATA_DIR: '/tmp/sr-openapi' });
    const app = await createApp(config, { databaseUrl: embedded.url, logger: new AppLogger('error') });
    const document = buildOpenApiDocument(app);
    await app.close();
    const target = join(__dirname, '..', '..', 'openapi.json');
    writeFileSync(target, JSON.stringify(document, null, 2) + '\n');
    process.stdout.write(`wrote ${target}\n`);
  } finally {
    await embedded.stop();
  }
}

void main().then(() => process.exit(0));
