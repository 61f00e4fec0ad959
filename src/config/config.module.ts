import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppLogger } from '../common/logging/app-logger';
import { AppConfig } from './app-config';

export const APP_CONFIG = Symbol('APP_CONFIG');

/** The validated configuration and the logger, available everywhere. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig, logger: AppLogger): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: AppLogger, useValue: logger },
      ],
      exports: [APP_CONFIG, AppLogger],
    };
  }
}
