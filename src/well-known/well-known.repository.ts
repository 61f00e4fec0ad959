// What the well-known index reads: public skills with their latest version (docs/resolution.md#version-lifecycle:
// never a yanked or revoked one), and the manifests their archives are built from.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ManifestFile } from '../package/manifest';
import { latestFollowableSql } from '../skills/skills.repository';

/** A public skill's latest active or deprecated version. */
export interface PublicVersion {
  skillId: number;
  name: string;
  version: number;
  revision: string;
  contentHash: string;
  fileCount: number;
  /** The version's own (its frontmatter's), not the skill row's, which follows the newest version. */
  description: string;
}

interface PublicVersionRow {
  skill_id: number;
  name: string;
  version: number;
  revision: string;
  content_hash: string;
  file_count: number;
  description: string;
}

/** A public version and the files of its package, as its archive is built from. */
export interface PublicVersionWithManifest extends PublicVersion {
  manifest: ManifestFile[];
}

function toPublicVersion(row: PublicVersionRow): PublicVersion {
  return {
    skillId: row.skill_id,
    name: row.name,
    version: row.version,
    revision: row.revision,
    contentHash: row.content_hash,
    fileCount: row.file_count,
    description: row.description,
  };
}

/** Public skills' latest versions, with `columns` more of each version. */
const publicVersionsSql = (columns = ''): string => `
  SELECT s.id AS skill_id, s.name, v.version, v.revision, v.content_hash, v.file_count,
         COALESCE(v.frontmatter->>'description', '') AS description${columns}
    FROM skills s
    JOIN skill_versions v ON v.skill_id = s.id AND v.version = ${latestFollowableSql('s')}
   WHERE s.is_public AND s.deleted_at IS NULL`;

@Injectable()
export class WellKnownRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Every public skill's latest version. */
  async publicVersions(): Promise<PublicVersion[]> {
    const rows: PublicVersionRow[] = await this.db.query(publicVersionsSql());
    return rows.map(toPublicVersion);
  }

  /** The public skill `name`'s latest version with its manifest, in one statement; null when there is none. */
  async publicVersionWithManifest(name: string): Promise<PublicVersionWithManifest | null> {
    const [row]: Array<PublicVersionRow & { manifest: ManifestFile[] }> = await this.db.query(
      `${publicVersionsSql(', v.manifest')} AND s.name = $1`,
      [name],
    );
    return row ? { ...toPublicVersion(row), manifest: row.manifest } : null;
  }

  /** The manifests of these versions, by `<skill id>:<version>`. */
  async manifests(
    versions: ReadonlyArray<Pick<PublicVersion, 'skillId' | 'version'>>,
  ): Promise<Map<string, ManifestFile[]>> {
    const rows: Array<{ skill_id: number; version: number; manifest: ManifestFile[] }> = await this.db.query(
      `SELECT v.skill_id, v.version, v.manifest
         FROM skill_versions v
         JOIN unnest($1::int[], $2::int[]) AS k(skill_id, version) ON v.skill_id = k.skill_id AND v.version = k.version`,
      [versions.map((v) => v.skillId), versions.map((v) => v.version)],
    );
    return new Map(rows.map((row) => [`${row.skill_id}:${row.version}`, row.manifest]));
  }
}
