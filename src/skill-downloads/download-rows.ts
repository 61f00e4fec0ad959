// The rows downloads decide over (a skill and the version asked for), kept until the next change
// (ChangeGeneration: any write here, or elsewhere through the change listener), and read once for
// all the requests that ask for the same one meanwhile. So a storm of sandboxes downloading the
// same packages reads each row once, and a download costs the database nothing after the first
// (docs/storage.md#what-a-download-costs).
import { Injectable } from '@nestjs/common';
import { ChangeGeneration } from '../cache/change-generation';
import { KeptReads } from '../cache/kept-reads';
import { SkillBytesRepository, SkillVersionRow, VersionBytes } from '../skills/skill-bytes.repository';

/** Skill versions kept: each entry is one small row. */
const DOWNLOAD_ROW_ENTRIES = 10_000;

type Row = SkillVersionRow<VersionBytes> | null;

@Injectable()
export class DownloadRows {
  private readonly rows: KeptReads<Row>;

  constructor(
    private readonly bytes: SkillBytesRepository,
    changes: ChangeGeneration,
  ) {
    this.rows = new KeptReads(changes, DOWNLOAD_ROW_ENTRIES, { lazy: true });
  }

  /** The skill and `version` of it (null: its latest), or null when there is no such skill. */
  find(skillId: number, version: number | null): Promise<Row> {
    return this.rows.get(`${skillId}:${version ?? 'latest'}`, () => this.bytes.findVersionBytes(skillId, version));
  }
}
