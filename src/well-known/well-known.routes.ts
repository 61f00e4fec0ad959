// Where the well-known index is served (docs/well-known.md#where): at the root, as the discovery
// format asks, and under the API prefix, for a deployment that forwards only that path.
import { RequestMethod } from '@nestjs/common';
import { API_PREFIX } from '../common/http/api-prefix';
import { ARCHIVES_FOLDER } from '../skill-index/discovery-index';

const FOLDER = '.well-known/agent-skills';
const MOUNTS = [FOLDER, `${API_PREFIX}/${FOLDER}`];

export const INDEX_PATHS = MOUNTS.map((mount) => `${mount}/index.json`);
export const ARCHIVE_PATHS = MOUNTS.map((mount) => `${mount}/${ARCHIVES_FOLDER}/:file`);

/**
 * Whether the request path is exactly the index's, or exactly the archive `file`'s. Express
 * matches routes regardless of case and with a trailing slash; these published paths name
 * nothing else (`/INDEX.JSON`, `/index.json/`, percent-encoded letters: 404).
 */
export function isExactPath(path: string, file?: string): boolean {
  return MOUNTS.some(
    (mount) => path === (file === undefined ? `/${mount}/index.json` : `/${mount}/${ARCHIVES_FOLDER}/${file}`),
  );
}

/**
 * Both folders are left out of the global prefix: the routes above are registered at exactly
 * those paths, and Nest answers any other path below them with its 404, through the one error
 * filter (`{/*rest}` also matches the folder itself).
 */
export const WELL_KNOWN_PREFIX_EXCLUSIONS: Array<{ path: string; method: RequestMethod }> = MOUNTS.map((mount) => ({
  path: `${mount}{/*rest}`,
  method: RequestMethod.ALL,
}));
