// The one TypeORM options factory, used by the app, the tests and the migration CLI.
import { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { ENTITIES } from './entities';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export interface DatabaseOptions {
  url: string;
  poolSize?: number;
}

export function buildDataSourceOptions({ url, poolSize = 10 }: DatabaseOptions): DataSourceOptions {
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
    extra: { max: poolSize, application_name: 'skill-resolver' },
  };
}
