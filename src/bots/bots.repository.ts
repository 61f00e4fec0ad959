import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DeepPartial, EntityManager, Repository } from 'typeorm';
import { ScopedRepository } from '../scoped/scoped.repository';
import { BotEntity } from './bot.entity';

const TABLE = 'bots';

@Injectable()
export class BotsRepository extends ScopedRepository<BotEntity> {
  constructor(@InjectRepository(BotEntity) repo: Repository<BotEntity>) {
    super(repo, TABLE);
  }

  /** Inserts the bot while its ghost is still active; null when the ghost is gone. */
  insertUsingGhost(values: DeepPartial<BotEntity> & { ghostId: number }): Promise<BotEntity | null> {
    return this.whileGhostActive(values.ghostId, (bots) => bots.insert(values));
  }

  /** Replaces the writable fields while the (new) ghost is still active; null when it is gone. */
  replaceUsingGhost(bot: BotEntity, values: DeepPartial<BotEntity> & { ghostId: number }): Promise<BotEntity | null> {
    return this.whileGhostActive(values.ghostId, (bots) => bots.replace(bot, values));
  }

  /**
   * Soft-deletes the bot unless an active team lists it, and returns the ids of those teams (then
   * nothing changed). The bot row stays locked until the end, and teams are written under a share
   * lock on their bots, so a concurrent team save is either seen here or sees the bot deleted.
   */
  async deleteUnlessInTeams(bot: BotEntity): Promise<number[]> {
    const id = bot.id;
    return this.repo.manager.transaction(async (tx) => {
      await tx.query('SELECT id FROM bots WHERE id = $1 FOR UPDATE', [id]);
      const teams: Array<{ id: number }> = await tx.query(
        'SELECT id FROM teams WHERE members @> $1::jsonb AND deleted_at IS NULL ORDER BY id',
        [JSON.stringify([{ bot_id: id }])],
      );
      if (teams.length === 0) {
        const [, deleted]: [unknown[], number] = await tx.query(
          'UPDATE bots SET deleted_at = now(), updated_at = now() WHERE id = $1 AND deleted_at IS NULL',
          [id],
        );
        if (deleted) await this.audit(tx, bot, 'delete');
      }
      return teams.map((t) => t.id);
    });
  }

  /**
   * Runs `write` in a transaction that holds a share lock on the active ghost, so that a ghost
   * delete (which locks the row for update, then looks for bots) cannot pass between the check
   * and the write.
   */
  private whileGhostActive<T>(
    ghostId: number,
    write: (bots: ScopedRepository<BotEntity>) => Promise<T>,
  ): Promise<T | null> {
    return this.repo.manager.transaction(async (tx: EntityManager) => {
      const ghost: unknown[] = await tx.query('SELECT id FROM ghosts WHERE id = $1 AND deleted_at IS NULL FOR SHARE', [
        ghostId,
      ]);
      if (ghost.length === 0) return null;
      return write(new ScopedRepository(tx.getRepository(BotEntity), TABLE));
    });
  }
}
