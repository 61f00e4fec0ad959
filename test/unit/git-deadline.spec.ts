// One deadline for everything an import asks of a git remote, and the client going away
// (docs/publishing.md#allowlist-credentials-and-limits): which error the caller gets, as a table.
import { DomainError } from '../../src/common/errors/domain-error';
import { cancelledBy, withDeadline } from '../../src/git-sources/import-slots';

/** Work against a remote that never answers: it fails as the git program does once its signal aborts. */
const never = (signal: AbortSignal): Promise<never> =>
  new Promise((_, reject) => {
    const fail = () => reject(new DomainError('GIT_TIMEOUT', 'The import from git was cancelled'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });

/** What withDeadline settled with: its value, or its error's code, message and details. */
async function settled(run: Promise<unknown>): Promise<unknown> {
  try {
    return { value: await run };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { code: err.code, message: err.message, details: err.details };
  }
}

describe('the deadline of an import', () => {
  const cancelled = {
    code: 'GIT_TIMEOUT',
    message: 'The import from git was cancelled: its client went away',
    details: undefined,
  };
  const timedOut = {
    code: 'GIT_TIMEOUT',
    message: 'The import from git did not finish within 30 ms',
    details: { timeout_ms: 30 },
  };

  it.each<[string, (cancel: AbortController) => Promise<unknown>, unknown]>([
    ['work that ends in time: its value', () => withDeadline(30, async () => 'done'), { value: 'done' }],
    ['a remote that never answers: GIT_TIMEOUT naming the limit', () => withDeadline(30, never), timedOut],
    [
      'the client goes while the remote is asked: cancelled at once, long before the limit',
      (cancel) => {
        const run = withDeadline(60_000, never, cancel.signal);
        setImmediate(() => cancel.abort());
        return run;
      },
      cancelled,
    ],
    [
      'the client gone before the work starts: its signal is aborted from the start',
      (cancel) => {
        cancel.abort();
        return withDeadline(60_000, async (signal) => (signal.aborted ? never(signal) : 'ran'), cancel.signal);
      },
      cancelled,
    ],
    [
      'the client goes after the remote answered: the work ends as it would have',
      (cancel) =>
        withDeadline(
          60_000,
          async () => {
            cancel.abort();
            return 'published';
          },
          cancel.signal,
        ),
      { value: 'published' },
    ],
    [
      'another error while the client goes: that error, unchanged',
      (cancel) =>
        withDeadline(
          60_000,
          async () => {
            cancel.abort();
            throw new DomainError('GIT_FETCH_FAILED', 'The remote answered: repository not found');
          },
          cancel.signal,
        ),
      { code: 'GIT_FETCH_FAILED', message: 'The remote answered: repository not found', details: undefined },
    ],
  ])('%s', async (_case, run, expected) => {
    expect(await settled(run(new AbortController()))).toEqual(expected);
  });

  const aborted = (): AbortSignal => {
    const controller = new AbortController();
    controller.abort();
    return controller.signal;
  };
  it.each<[string, unknown, AbortSignal | undefined, boolean]>([
    ['the remote stopped, the client gone', new DomainError('GIT_TIMEOUT', 'cancelled'), aborted(), true],
    [
      'the remote stopped, the client still there',
      new DomainError('GIT_TIMEOUT', 'late'),
      new AbortController().signal,
      false,
    ],
    ['the remote stopped, no client signal', new DomainError('GIT_TIMEOUT', 'late'), undefined, false],
    ['another refusal, the client gone', new DomainError('SKILL_INVALID', 'invalid'), aborted(), false],
    ['a bug, the client gone', new Error('boom'), aborted(), false],
  ])('counted cancelled: %s -> %s', (_case, err, cancel, expected) => {
    expect(cancelledBy(err, cancel)).toBe(expected);
  });
});
