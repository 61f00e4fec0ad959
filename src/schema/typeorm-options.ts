// The one TypeORM options factory, used by the app, the tests and the migration CLI.
import { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { DatabaseLimits } from '../config/app-config';
import { boundedPoolOptions } from '../database/database-limits';
import { ENTITIES } from './entities';
import { SnakeNamingStrategy } from '../database/snake-naming.strategy';

export interface DatabaseOptions {
  url: string;
  poolSize?: number;
  /** Time limits of the serving pool; none for migrations (the CLI, boot), which may run long. */
  limits?: DatabaseLimits;
}

export function buildDataSourceOptions({ url, poolSize = 10, limits }: DatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: { max: poolSize, application_name: 'skill-resolver', ...(limits ? boundedPoolOptions(limits) : {}) },
  };
}
