// What the import service asks of a git remote, and what it gets back (docs/publishing.md#importing-from-git).
// Every failure is a DomainError with one of the GIT_* codes.

/** What an operator allowed (GIT_ALLOWED_HOSTS, GIT_CREDENTIALS) and the limits of one import. */
export interface GitSettings {
  /** `host[:port]` allowed over https, or `http://host[:port]` allowed over plain http. */
  allowedHosts: readonly string[];
  /** `host[:port]` → token, sent only to that host as HTTP Basic with the token as password. */
  credentials: ReadonlyMap<string, string>;
  /** Whole import (resolve and fetch), GIT_IMPORT_TIMEOUT_MS. */
  timeoutMs: number;
  /** Bytes fetched from the remote, GIT_MAX_FETCH_BYTES. */
  maxFetchBytes: number;
  /**
   * The files of the folder read, expanded, before they are read (413 GIT_FETCH_TOO_LARGE past
   * it; the package limits apply after). Default maxFetchBytes.
   */
  maxFolderBytes?: number;
  /** Entries under the folder read (files, links, submodules). Default 25,600 (50 skills of 512). */
  maxFolderFiles?: number;
}

/** A remote a caller named, checked against the settings (the URL as git will be given it). */
export interface GitLocation {
  /** The URL as the caller gave it, without credentials (what `source.url` records). */
  url: string;
  /** `ref` as the caller gave it, `HEAD` when not given. */
  ref: string;
  /** Relative, no leading or trailing `/`, `""` for the root. */
  path: string;
}

export interface GitFile {
  /** Relative to the folder that was read, `/`-separated. */
  path: string;
  /** 0o100644 or 0o100755. */
  mode: number;
  bytes: Buffer;
}

/** One folder of one commit, as stored in git. */
export interface GitFolder {
  /** The 40-hex commit the ref resolved to. */
  commit: string;
  /** The folder's own tree id at that commit: equal ids mean the folder did not change. */
  treeId: string;
  /** Regular files under the folder (not under a submodule), sorted by path. */
  files: GitFile[];
  /** Symbolic links under the folder, relative paths. */
  symlinks: string[];
  /** Submodules under the folder (gitlinks), relative paths: skipped with a warning. */
  submodules: string[];
  /** Files whose bytes are Git LFS pointers, relative paths (also in `files`). */
  lfsPointers: string[];
}

export interface GitRemoteReader {
  /** The commit `location.ref` names now (a branch, a tag, a full commit id, or HEAD). */
  resolve(location: GitLocation, signal?: AbortSignal): Promise<string>;
  /** The folder's tree id at `commit` without reading its files (the drift check). */
  treeId(location: GitLocation, commit: string, signal?: AbortSignal): Promise<string>;
  /** The folder at `commit`, with its files' bytes. */
  readFolder(location: GitLocation, commit: string, signal?: AbortSignal): Promise<GitFolder>;
}
