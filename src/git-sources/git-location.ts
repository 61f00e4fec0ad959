// The caller's url, ref and path, checked against what the operator allowed (docs/publishing.md#allowlist-credentials-and-limits).
import type { GitImportSettings } from '../config/app-config';
import { checkGitLocation } from './git/git-rules';
import type { GitLocation } from './git/git-remote.types';

export interface GitTarget {
  url: string;
  ref?: string;
  path?: string;
}

/** A GitLocation, or a DomainError (GIT_URL_INVALID, GIT_HOST_NOT_ALLOWED). */
export function locate(target: GitTarget, settings: GitImportSettings): GitLocation {
  return checkGitLocation(target, settings.allowedHosts);
}
