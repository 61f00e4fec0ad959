// Random credentials with a recognisable prefix, stored only as their SHA-256.
import { hash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'srk_';
export const TASK_TOKEN_PREFIX = 'srt_';
/** How many leading characters of a key are kept in clear to tell keys apart. */
export const SHOWN_PREFIX_LENGTH = 12;

/** 256 random bits, base64url, behind `prefix`. */
export function generateSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** The hex SHA-256 of the secret's UTF-8 bytes: every authenticated request computes it (the cache is keyed by it). */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}
