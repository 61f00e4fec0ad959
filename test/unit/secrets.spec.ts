// Keys and tokens are stored only as the hex SHA-256 of their UTF-8 bytes: a stored hash must keep
// matching the secret it was made from, whatever computes it.
import { API_KEY_PREFIX, generateSecret, hashSecret, TASK_TOKEN_PREFIX } from '../../src/auth/secrets';

describe('hashSecret', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['srk_é', 'ef89550d20f91e36a3e0b2268ba42e79b137259002c6a9dde70b7238d0a910d0'],
    ['srk_\u{1F600}', '01d5fc326d5a657cfbb9a4a52ccf7de95e9ed4982a5bf45691e3587fbc0eacd5'],
  ])('%j hashes to the SHA-256 of its UTF-8 bytes', (secret, hex) => {
    expect(hashSecret(secret)).toBe(hex);
  });
});

describe('generateSecret', () => {
  it.each([API_KEY_PREFIX, TASK_TOKEN_PREFIX])('%s: the prefix, then 256 random bits in base64url', (prefix) => {
    const a = generateSecret(prefix);
    expect(a).toMatch(new RegExp(`^${prefix}[A-Za-z0-9_-]{43}$`));
    expect(generateSecret(prefix)).not.toBe(a);
  });
});
