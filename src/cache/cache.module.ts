import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { ChangeGeneration } from './change-generation';
import { ChangeListener, LISTEN_URL } from './change-listener';
import { WriteInvalidationInterceptor } from './write-invalidation.interceptor';

@Global()
@Module({})
export class CacheModule {
  /** `listenUrl`: the server to LISTEN on for writes made elsewhere; null on the embedded database. */
  static forRoot(listenUrl: string | null): DynamicModule {
    return {
      module: CacheModule,
      providers: [
        ChangeGeneration,
        ChangeListener,
        { provide: LISTEN_URL, useValue: listenUrl },
        { provide: APP_INTERCEPTOR, useClass: WriteInvalidationInterceptor },
      ],
      exports: [ChangeGeneration],
    };
  }
}
