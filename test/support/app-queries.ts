// The app's SQL statements during one call, counted at the driver: every query goes through pg's
// Client#query. The change listener's own (LISTEN, heartbeats) are not the call's, nor is the
// batched record of keys used (written by a timer, which may fire during any call).
import { Client } from 'pg';
import { TOUCH_API_KEYS_SQL } from '../../src/auth/credentials.repository';
import { LISTENER_APPLICATION_NAME } from '../../src/cache/change-listener';

export async function countingQueries<T>(run: () => Promise<T>): Promise<{ result: T; queries: number }> {
  const spy = jest.spyOn(Client.prototype, 'query');
  try {
    const result = await run();
    const queries = spy.mock.calls.filter(
      ([statement], i) =>
        statement !== TOUCH_API_KEYS_SQL &&
        (spy.mock.contexts[i] as { connectionParameters?: { application_name?: string } }).connectionParameters
          ?.application_name !== LISTENER_APPLICATION_NAME,
    ).length;
    return { result, queries };
  } finally {
    spy.mockRestore();
  }
}
