// The stable codes (docs/packages.md#problem-codes) an inspected package can carry, and the one shape they take.
/** Errors: a package carrying any of them is rejected. */
export const PROBLEM_CODES = [
  'ZIP_INVALID',
  'ZIP_UNSAFE_PATH',
  'ZIP_SYMLINK',
  'ZIP_DUPLICATE_PATH',
  'ZIP_ENCRYPTED',
  'ZIP_TOO_MANY_ENTRIES',
  'ZIP_ENTRY_TOO_LARGE',
  'ZIP_TOO_LARGE_EXPANDED',
  'ZIP_RATIO',
  'ZIP_LAYOUT',
  'SKILL_MD_MISSING',
  'FRONTMATTER_MISSING',
  'FRONTMATTER_INVALID',
  'NAME_MISSING',
  'NAME_INVALID',
  'NAME_MISMATCH',
  'DESCRIPTION_MISSING',
  'DESCRIPTION_INVALID',
  'COMPATIBILITY_INVALID',
  'METADATA_INVALID',
  'ALLOWED_TOOLS_INVALID',
  'LICENSE_INVALID',
  'REQUIRES_INVALID',
  'SKILL_MD_TOO_LARGE',
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];

/** Warnings: reported, and the package is accepted. */
export const WARNING_CODES = [
  'UNKNOWN_FIELD',
  'BODY_LONG',
  'METADATA_NOT_STRINGS',
  'ALLOWED_TOOLS_LIST',
  'DESCRIPTION_LONG',
  // A git submodule inside an imported folder: its files are not the repository's (docs/publishing.md#importing-from-git).
  'SUBMODULE_SKIPPED',
] as const;
export type WarningCode = (typeof WARNING_CODES)[number];

export interface Problem {
  code: ProblemCode | WarningCode;
  message: string;
  /** The frontmatter key or the zip path concerned. */
  field?: string;
}

export function problem(code: ProblemCode | WarningCode, message: string, field?: string): Problem {
  return field === undefined ? { code, message } : { code, message, field };
}

/**
 * Paths go into messages quoted, cut when long enough to drown the message, with invisible and
 * bidirectional characters escaped so a message cannot show a name as another.
 */
export function shown(path: string): string {
  const chars = [...path];
  const cut = chars.length > 120 ? `${chars.slice(0, 120).join('')}...` : path;
  return JSON.stringify(cut).replace(
    /[\u007f-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
