// The Content-Type of single files (docs/api.md#single-files): text by extension, everything else a download,
// and never a type a browser would render as a page.
import { fileType } from '../../src/skills/file-content-type';

const MARKDOWN = 'text/markdown; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';
const BINARY = 'application/octet-stream';

describe('file types', () => {
  it.each([
    ['SKILL.md', MARKDOWN],
    ['docs/GUIDE.MD', MARKDOWN],
    ...['txt', 'py', 'sh', 'js', 'ts', 'json', 'yaml', 'yml', 'toml', 'csv'].map((ext) => [`a/b.${ext}`, TEXT]),
    ['scripts/run.PY', TEXT],
    ['index.html', BINARY],
    ['page.htm', BINARY],
    ['logo.svg', BINARY],
    ['image.png', BINARY],
    ['notes.markdown', BINARY],
    ['LICENSE', BINARY],
    ['.bashrc', BINARY],
    ['dir.md/file', BINARY],
    ['archive.tar.gz', BINARY],
  ])('%s is served as %s', (path, contentType) => {
    const type = fileType(path);
    expect(type.contentType).toBe(contentType);
    expect(type.disposition === null).toBe(contentType !== BINARY);
  });

  it.each([
    ['a/logo.svg', `attachment; filename="logo.svg"; filename*=UTF-8''logo.svg`],
    ['résumé v2.pdf', `attachment; filename="r_sum__v2.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20v2.pdf`],
    ['quote"s;\\.bin', `attachment; filename="quote_s__.bin"; filename*=UTF-8''quote%22s%3B%5C.bin`],
    ["it's (1).bin", `attachment; filename="it_s__1_.bin"; filename*=UTF-8''it%27s%20%281%29.bin`],
  ])('downloads %j as %s', (path, disposition) => {
    expect(fileType(path).disposition).toBe(disposition);
  });
});
