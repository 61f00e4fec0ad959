import { Global, Module } from '@nestjs/common';
import { ScopedAccess } from './scoped-access';

/** Access checks shared by every feature that owns scoped resources. */
@Global()
@Module({
  providers: [ScopedAccess],
  exports: [ScopedAccess],
})
export class ScopedModule {}
