// Who may read a skill row: the access table, plus deleted skills (admins only).
import { Injectable } from '@nestjs/common';
import { Actor } from '../access';
import { DomainError } from '../common/errors/domain-error';
import { NamespaceAccess } from '../groups/namespace-access.service';
import { SkillEntity } from './skill.entity';

export const SKILL_NOT_FOUND = 'Skill not found';

@Injectable()
export class SkillReaders {
  constructor(private readonly access: NamespaceAccess) {}

  /** The skill when `actor` may read it, else 404 (missing, unreadable, or deleted for non-admins). */
  async readable(actor: Actor, skill: SkillEntity | null): Promise<SkillEntity> {
    if (!skill || (skill.deletedAt && !actor.isAdmin)) throw DomainError.notFound(SKILL_NOT_FOUND);
    await this.access.requireRead(actor, skill, SKILL_NOT_FOUND);
    return skill;
  }

  /** 404 when unreadable or deleted, 403 when readable but not changeable by `actor`. */
  async changeable(actor: Actor, skill: SkillEntity | null): Promise<SkillEntity> {
    if (!skill || skill.deletedAt) throw DomainError.notFound(SKILL_NOT_FOUND);
    await this.access.requireChange(actor, skill, SKILL_NOT_FOUND);
    return skill;
  }
}
