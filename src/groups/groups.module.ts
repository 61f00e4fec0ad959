import { Global, Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { GroupsController } from './groups.controller';
import { GroupsRepository } from './groups.repository';
import { GroupsService } from './groups.service';
import { NamespaceAccess } from './namespace-access.service';
import { ScopedAccess } from './scoped-access.service';

@Global()
@Module({
  imports: [UsersModule],
  controllers: [GroupsController],
  providers: [GroupsRepository, GroupsService, NamespaceAccess, ScopedAccess],
  exports: [NamespaceAccess, ScopedAccess, GroupsRepository],
})
export class GroupsModule {}
