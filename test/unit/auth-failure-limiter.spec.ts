// docs/operations.md#rate-limits: failed authentications per client address, as a table over a fake clock.
import { AuthFailureWindows, clientKey } from '../../src/auth/auth-failure-limiter';

function windows(limit: number, windowMs = 60_000, maxAddresses?: number) {
  let now = 1_000_000;
  const w = new AuthFailureWindows({ limit, windowMs, maxAddresses }, () => now);
  return {
    w,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('AuthFailureWindows', () => {
  it('allows `limit` failures, then blocks the address until the window opened by the first ends', () => {
    const { w, advance } = windows(3);
    for (let i = 0; i < 3; i++) {
      expect(w.retryAfterSeconds('a')).toBe(0);
      w.recordFailure('a');
      advance(1_000);
    }
    // Three failures at t=0, 1 s, 2 s: blocked now (t=3 s) until t=60 s.
    expect(w.retryAfterSeconds('a')).toBe(57);
    advance(56_500);
    expect(w.retryAfterSeconds('a')).toBe(1);
    advance(500);
    expect(w.retryAfterSeconds('a')).toBe(0);
    // A new window: three more failures allowed.
    w.recordFailure('a');
    expect(w.retryAfterSeconds('a')).toBe(0);
  });

  it('never blocks another address', () => {
    const { w } = windows(2);
    w.recordFailure('a');
    w.recordFailure('a');
    expect(w.retryAfterSeconds('a')).toBe(60);
    expect(w.retryAfterSeconds('b')).toBe(0);
  });

  it('failures spread over windows never block', () => {
    const { w, advance } = windows(2, 10_000);
    for (let i = 0; i < 10; i++) {
      w.recordFailure('a');
      advance(10_000);
      expect(w.retryAfterSeconds('a')).toBe(0);
    }
  });

  it('0 turns the limit off and keeps nothing', () => {
    const { w } = windows(0);
    for (let i = 0; i < 100; i++) w.recordFailure('a');
    expect(w.retryAfterSeconds('a')).toBe(0);
    expect(w.size).toBe(0);
  });

  it('keeps memory bounded under address churn: expired windows go first, then the oldest', () => {
    const { w, advance } = windows(1, 60_000, 1_000);
    const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    for (let i = 0; i < 100_000; i++) {
      w.recordFailure(address(i));
      if (i % 1_000 === 0) advance(1);
    }
    expect(w.size).toBe(1_000);
    // The most recent addresses are still blocked, the oldest were dropped.
    expect(w.retryAfterSeconds(address(99_999))).toBeGreaterThan(0);
    expect(w.retryAfterSeconds(address(0))).toBe(0);
    advance(60_000);
    w.recordFailure('192.0.2.1');
    expect(w.size).toBe(1);
  });
});

describe('clientKey', () => {
  it.each([
    ['IPv4', '203.0.113.7', '203.0.113.7'],
    ['IPv4-mapped IPv6', '::ffff:203.0.113.7', '203.0.113.7'],
    ['IPv6 by its /64', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['another address of that /64', '2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['compressed in the prefix', '2001:db8::1', '2001:db8:0:0::/64'],
    ['loopback', '::1', '0:0:0:0::/64'],
    ['a zone id', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['unknown', undefined, 'unknown'],
  ])('%s', (_title, address, expected) => {
    expect(clientKey(address)).toBe(expected);
  });
});
