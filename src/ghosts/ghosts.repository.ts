import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ScopedRepository } from '../scoped/scoped.repository';
import { GhostEntity } from './ghost.entity';

@Injectable()
export class GhostsRepository extends ScopedRepository<GhostEntity> {
  constructor(@InjectRepository(GhostEntity) repo: Repository<GhostEntity>) {
    super(repo, 'ghosts');
  }

  /**
   * Soft-deletes the ghost unless an active bot uses it, and returns the ids of those bots (then
   * nothing changed). The ghost row stays locked until the end, and bots are written under a share
   * lock on their ghost, so a bot saved concurrently is either seen here or sees the ghost deleted.
   */
  async deleteUnlessUsedByBots(ghost: GhostEntity): Promise<number[]> {
    const id = ghost.id;
    return this.repo.manager.transaction(async (tx) => {
      await tx.query('SELECT id FROM ghosts WHERE id = $1 FOR UPDATE', [id]);
      const bots: Array<{ id: number }> = await tx.query(
        'SELECT id FROM bots WHERE ghost_id = $1 AND deleted_at IS NULL ORDER BY id',
        [id],
      );
      if (bots.length === 0) {
        const [, deleted]: [unknown[], number] = await tx.query(
          'UPDATE ghosts SET deleted_at = now(), updated_at = now() WHERE id = $1 AND deleted_at IS NULL',
          [id],
        );
        if (deleted) await this.audit(tx, ghost, 'delete');
      }
      return bots.map((b) => b.id);
    });
  }
}
