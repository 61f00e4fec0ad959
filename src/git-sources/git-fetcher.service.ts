// What an import, a check or an update asks of a git remote (docs/publishing.md#allowlist-credentials-and-limits):
// the caller's url, ref and path checked against the allowlist, one of the caller's import slots,
// and one deadline for every request to the remote.
import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { FolderSkill, folderSkills } from './folder-skills';
import { GitTarget, locate } from './git-location';
import { GIT_REMOTE } from './git-remote.provider';
import type { GitFolder, GitLocation, GitRemoteReader } from './git/git-remote.types';
import { ImportSlots, withDeadline } from './import-slots';

/** The remote's reads, all under the same deadline. */
export interface GitReads {
  resolve(location: GitLocation): Promise<string>;
  treeId(location: GitLocation, commit: string): Promise<string>;
  readFolder(location: GitLocation, commit: string): Promise<GitFolder>;
}

@Injectable()
export class GitFetcher {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(GIT_REMOTE) private readonly remote: GitRemoteReader,
    private readonly slots: ImportSlots,
  ) {}

  /** The target checked against today's allowlist (GIT_URL_INVALID, GIT_HOST_NOT_ALLOWED). */
  locate(target: GitTarget): GitLocation {
    return locate(target, this.config.git);
  }

  /**
   * `work` in one of `userId`'s import slots (429 when none is free), under one deadline; `cancel`
   * (the client went away) stops what runs against the remote at once and frees the slot.
   */
  run<T>(userId: number, work: (remote: GitReads) => Promise<T>, cancel?: AbortSignal): Promise<T> {
    return this.slots.run(userId, () =>
      withDeadline(
        this.config.git.timeoutMs,
        (signal) =>
          work({
            resolve: (location) => this.remote.resolve(location, signal),
            treeId: (location, commit) => this.remote.treeId(location, commit, signal),
            readFolder: (location, commit) => this.remote.readFolder(location, commit, signal),
          }),
        cancel,
      ),
    );
  }

  /** The skills of a folder read at `path`, within the package limits. */
  skillsOf(folder: GitFolder, path: string): FolderSkill[] {
    return folderSkills(folder, path, this.config.packageLimits.maxEntries);
  }
}
