// The rows downloads decide over (a skill and the version asked for), kept until the next change
// (ChangeGeneration: any write here, or elsewhere through the change listener), and read once for
// all the requests that ask for the same one meanwhile. So a storm of sandboxes downloading the
// same packages reads each row once, and a download costs the database nothing after the first
// (docs/storage.md#what-a-download-costs).
import { Injectable } from '@nestjs/common';
import { ChangeGeneration, GenerationCache } from '../cache/change-generation';
import { InFlight } from '../cache/in-flight';
import { SkillBytesRepository, SkillVersionRow, VersionBytes } from '../skills/skill-bytes.repository';

/** Skill versions kept: each entry is one small row. */
const DOWNLOAD_ROW_ENTRIES = 10_000;

type Row = SkillVersionRow<VersionBytes> | null;

@Injectable()
export class DownloadRows {
  private readonly kept: GenerationCache<Row>;
  private readonly reading = new InFlight<Row, number>();

  constructor(
    private readonly bytes: SkillBytesRepository,
    private readonly changes: ChangeGeneration,
  ) {
    this.kept = new GenerationCache(changes, DOWNLOAD_ROW_ENTRIES, { lazy: true });
  }

  /** The skill and `version` of it (null: its latest), or null when there is no such skill. */
  async find(skillId: number, version: number | null): Promise<Row> {
    const key = `${skillId}:${version ?? 'latest'}`;
    const kept = this.kept.get(key);
    if (kept !== undefined) return kept;
    const generation = this.changes.current();
    const row = await this.reading.run(
      key,
      generation,
      (begun) => this.changes.isCurrent(begun),
      () => this.bytes.findVersionBytes(skillId, version),
    );
    this.kept.set(key, row, generation);
    return row;
  }
}
