// Who may read and change a skill row: the scoped access every feature uses, with the skills' own
// deletion rule (admins still read a deleted skill and download its versions).
import { Injectable } from '@nestjs/common';
import { Actor } from '../access';
import { ScopedAccess } from '../groups/scoped-access.service';
import { SkillEntity } from './skill.entity';

export const SKILL_NOT_FOUND = 'Skill not found';

@Injectable()
export class SkillReaders {
  constructor(private readonly access: ScopedAccess) {}

  /** The skill when `actor` may read it, else 404 (missing, unreadable, or deleted for non-admins). */
  readable(actor: Actor, skill: SkillEntity | null): Promise<SkillEntity> {
    return this.access.readable(actor, skill, SKILL_NOT_FOUND, 'skill');
  }

  /** 404 when unreadable or deleted, 403 when readable but not changeable by `actor`. */
  changeable(actor: Actor, skill: SkillEntity | null): Promise<SkillEntity> {
    return this.access.changeable(actor, skill, SKILL_NOT_FOUND);
  }
}
