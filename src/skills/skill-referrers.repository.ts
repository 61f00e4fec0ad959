// docs/packages.md#deleting: who still refers to a skill. Ghosts by a stored ref's id; subscriptions and task
// `requestedSkillRefs` by an exact scope match (decided by the resolver's selectionRefersTo). Rows
// are read defensively: a damaged stored selection refers to nothing rather than failing the delete.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { parseTaskSelections, selectionRefersTo, SkillFacts, storedSelections } from '../resolver';

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

/** A stored jsonb map as written, or an empty one when a row holds anything else (never an error). */
function objectOrEmpty(column: string): string {
  return `CASE WHEN jsonb_typeof(${column}) = 'object' THEN ${column} ELSE '{}'::jsonb END`;
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
          AND EXISTS (SELECT 1 FROM jsonb_each(${objectOrEmpty('g.skill_refs')}) e
                       WHERE e.value->'skill_id' = to_jsonb($1::int)
                      UNION ALL
                      SELECT 1 FROM jsonb_each(${objectOrEmpty('g.preload_skill_refs')}) e
                       WHERE e.value->'skill_id' = to_jsonb($1::int))
        ORDER BY id`,
      [skill.id],
    );
    // Candidates by name, then the exact scope rule in code.
    const subscriptions: Array<Row & { skill_refs: unknown }> = await this.db.query(
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
        .filter((s) =>
          storedSelections(s.skill_refs, true).some((sel) => selectionRefersTo(sel, s.owner_user_id, skill)),
        )
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
