// The embedded database's own settings (the tests' embedded server opens it as the service does).
import { SHARED_BUFFERS } from '../../src/database/embedded-postgres';
import { isServerMode, URL_ENV, withClient } from '../support/database';

const onEmbedded = isServerMode() ? describe.skip : describe;

onEmbedded('the embedded database', () => {
  it("keeps a buffer cache of SHARED_BUFFERS, not PostgreSQL's 128MB (PGlite holds it all from the start)", async () => {
    const shown = await withClient(process.env[URL_ENV]!, (c) =>
      c.query<{ shared_buffers: string }>('SHOW shared_buffers'),
    );
    expect(shown.rows[0].shared_buffers).toBe(SHARED_BUFFERS);
    expect(SHARED_BUFFERS).not.toBe('128MB');
  });
});
