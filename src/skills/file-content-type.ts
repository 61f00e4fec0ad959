// How a single file of a package is served (docs/api.md#single-files): a type by extension that a browser can
// never run as a page (no HTML, no SVG), and a download for everything that is not plain text.

const MARKDOWN = 'text/markdown; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';
const BINARY = 'application/octet-stream';
const TEXT_EXTENSIONS = new Set(['txt', 'py', 'sh', 'js', 'ts', 'json', 'yaml', 'yml', 'toml', 'csv']);

export interface FileType {
  contentType: string;
  /** `Content-Disposition` for files served as downloads; null for text. */
  disposition: string | null;
}

/** The extension decides, case-insensitively; a name without one (`LICENSE`) is binary. */
export function fileType(path: string): FileType {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const extension = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  if (extension === 'md') return { contentType: MARKDOWN, disposition: null };
  if (TEXT_EXTENSIONS.has(extension)) return { contentType: TEXT, disposition: null };
  return { contentType: BINARY, disposition: attachment(base) };
}

/** RFC 6266: an ASCII fallback name, and the exact one in RFC 8187 encoding. */
function attachment(name: string): string {
  const fallback = name.replace(/[^A-Za-z0-9._-]/g, '_') || 'file';
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}
