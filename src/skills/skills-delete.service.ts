import { Injectable } from '@nestjs/common';
import { UserPrincipal } from '../auth/principal';
import { SkillReaders } from './skill-readers';
import { SkillsRepository } from './skills.repository';

@Injectable()
export class SkillsDeleteService {
  constructor(
    private readonly skills: SkillsRepository,
    private readonly readers: SkillReaders,
  ) {}

  /** Soft delete (the name is free again in its scope); versions stay downloadable by admins. */
  async remove(caller: UserPrincipal, id: number, _force: boolean): Promise<void> {
    const skill = await this.readers.changeable(caller, await this.skills.findById(id));
    await this.skills.softDelete(skill.id);
  }
}
