import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminBootstrap } from './admin-bootstrap.service';
import { ApiKeyEntity } from './api-key.entity';
import { UserEntity } from './user.entity';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, ApiKeyEntity])],
  controllers: [UsersController],
  providers: [UsersRepository, UsersService, AdminBootstrap],
  exports: [UsersRepository, AdminBootstrap],
})
export class UsersModule {}
