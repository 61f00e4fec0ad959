import { Global, Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { GroupsController } from './groups.controller';
import { GroupsRepository } from './groups.repository';
import { GroupsService } from './groups.service';
import { NamespaceAccess } from './namespace-access.service';

@Global()
@Module({
  imports: [UsersModule],
  controllers: [GroupsController],
  providers: [GroupsRepository, GroupsService, NamespaceAccess],
  exports: [NamespaceAccess, GroupsRepository],
})
export class GroupsModule {}
