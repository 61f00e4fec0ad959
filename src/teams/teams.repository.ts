import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DeepPartial, EntityManager, Repository } from 'typeorm';
import { ScopedRepository } from '../scoped/scoped.repository';
import { TeamEntity, TeamMember } from './team.entity';

const TABLE = 'teams';

@Injectable()
export class TeamsRepository extends ScopedRepository<TeamEntity> {
  constructor(@InjectRepository(TeamEntity) repo: Repository<TeamEntity>) {
    super(repo, TABLE);
  }

  /** Inserts the team while every member bot is still active; null when one is gone. */
  insertWithBots(values: DeepPartial<TeamEntity> & { members: TeamMember[] }): Promise<TeamEntity | null> {
    return this.whileBotsActive(values.members, (teams) => teams.insert(values));
  }

  /** Replaces the writable fields while every member bot is still active; null when one is gone. */
  replaceWithBots(
    team: TeamEntity,
    values: DeepPartial<TeamEntity> & { members: TeamMember[] },
  ): Promise<TeamEntity | null> {
    return this.whileBotsActive(values.members, (teams) => teams.replace(team, values));
  }

  /**
   * Runs `write` in a transaction that holds share locks on the member bots, so that a bot delete
   * (which locks its row for update, then looks for teams) cannot pass between check and write.
   */
  private whileBotsActive<T>(
    members: TeamMember[],
    write: (teams: ScopedRepository<TeamEntity>) => Promise<T>,
  ): Promise<T | null> {
    const ids = [...new Set(members.map((m) => m.bot_id))];
    return this.repo.manager.transaction(async (tx: EntityManager) => {
      // In id order, so two writers never wait on each other's locks in a cycle.
      const bots: unknown[] = await tx.query(
        'SELECT id FROM bots WHERE id = ANY($1::int[]) AND deleted_at IS NULL ORDER BY id FOR SHARE',
        [ids],
      );
      if (bots.length !== ids.length) return null;
      return write(new ScopedRepository(tx.getRepository(TeamEntity), TABLE));
    });
  }
}
