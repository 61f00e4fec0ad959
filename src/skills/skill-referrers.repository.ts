// CONTRACT §3: who still refers to a skill. Ghosts by a stored ref's id; subscriptions and task
// `requestedSkillRefs` by an exact scope match (decided by the resolver's selectionRefersTo).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ExplicitSelection, parseTaskSelections, selectionRefersTo, SkillFacts } from '../resolver';

export interface Referrer {
  id: number;
  namespace: string;
  ownerUserId: number;
}

export interface Referrers {
  ghosts: Referrer[];
  subscriptions: Referrer[];
  tasks: Referrer[];
}

interface Row {
  id: number;
  namespace: string;
  owner_user_id: number;
}

@Injectable()
export class SkillReferrersRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async find(skill: SkillFacts): Promise<Referrers> {
    const ghosts: Row[] = await this.db.query(
      `SELECT id, namespace, owner_user_id FROM ghosts g
        WHERE deleted_at IS NULL
          AND (EXISTS (SELECT 1 FROM jsonb_each(g.skill_refs) e WHERE (e.value->>'skill_id')::int = $1)
               OR EXISTS (SELECT 1 FROM jsonb_each(g.preload_skill_refs) e WHERE (e.value->>'skill_id')::int = $1))
        ORDER BY id`,
      [skill.id],
    );
    // Candidates by name, then the exact scope rule in code.
    const subscriptions: Array<Row & { skill_refs: ExplicitSelection[] }> = await this.db.query(
      `SELECT id, namespace, owner_user_id, skill_refs FROM subscriptions
        WHERE deleted_at IS NULL AND skill_refs @> jsonb_build_array(jsonb_build_object('name', $1::text))
        ORDER BY id`,
      [skill.name],
    );
    const tasks: Array<Row & { labels: Record<string, string> }> = await this.db.query(
      `SELECT id, namespace, owner_user_id, labels FROM tasks
        WHERE strpos(labels->>'requestedSkillRefs', $1) > 0 ORDER BY id`,
      [JSON.stringify(skill.name)],
    );
    return {
      ghosts: ghosts.map(toReferrer),
      subscriptions: subscriptions
        .filter((s) => s.skill_refs.some((sel) => selectionRefersTo(sel, s.owner_user_id, skill)))
        .map(toReferrer),
      tasks: tasks
        .filter((t) => {
          const selections = parseTaskSelections(t.labels);
          return (
            selections.kind === 'refs' && selections.refs.some((sel) => selectionRefersTo(sel, t.owner_user_id, skill))
          );
        })
        .map(toReferrer),
    };
  }
}

function toReferrer(row: Row): Referrer {
  return { id: row.id, namespace: row.namespace, ownerUserId: row.owner_user_id };
}
