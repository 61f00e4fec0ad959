// The locks that keep stored bytes and the versions that refer to them in step (docs/storage.md#garbage):
// a transaction that writes a version holds BYTES_LOCK shared; one that deletes stored bytes holds it
// exclusively and checks, under it, that nothing refers to them. So bytes are never deleted between
// the moment a publish found them in the store and the commit of the version that refers to them.
// (On the embedded database all connections are one session, whose transactions run one at a time:
// the same order holds.)
import type { EntityManager } from 'typeorm';

const BYTES_LOCK = 724_311_906;

/** Held by one replica while it sweeps (a session lock on a connection of its own). */
export const SWEEP_LOCK = 724_311_907;

/** In a transaction that writes a version referring to stored bytes. */
export async function holdBytesShared(tx: EntityManager): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock_shared($1)', [BYTES_LOCK]);
}

/** In a transaction that deletes stored bytes, before it checks that nothing refers to them. */
export async function holdBytesExclusive(tx: EntityManager): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [BYTES_LOCK]);
}
