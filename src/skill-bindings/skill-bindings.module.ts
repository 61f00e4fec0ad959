import { Module } from '@nestjs/common';
import { SkillsModule } from '../skills/skills.module';
import { GroupSkillBindingsController, UserSkillBindingsController } from './skill-bindings.controller';
import { SkillBindingsRepository } from './skill-bindings.repository';
import { SkillBindingsService } from './skill-bindings.service';

@Module({
  imports: [SkillsModule],
  controllers: [UserSkillBindingsController, GroupSkillBindingsController],
  providers: [SkillBindingsRepository, SkillBindingsService],
})
export class SkillBindingsModule {}
