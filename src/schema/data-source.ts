// The data source of the TypeORM migration CLI (`npm run migration:*`), built by the same options
// factory as the app. Without DATABASE_URL it opens the embedded database, taking its lock.
import { DataSource } from 'typeorm';
import { loadConfig, readEnvFile } from '../config/app-config';
import { startEmbeddedPostgres } from '../database/embedded-postgres';
import { buildDataSourceOptions } from './typeorm-options';

async function createCliDataSource(): Promise<DataSource> {
  readEnvFile();
  const config = loadConfig();
  let url = config.databaseUrl;
  if (!url) {
    const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, maxConnections: 4 });
    url = embedded.url;
  }
  return new DataSource(buildDataSourceOptions({ url, poolSize: 2 }));
}

export const dataSource = createCliDataSource();
