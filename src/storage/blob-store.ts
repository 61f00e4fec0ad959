// What every feature that reads or writes package bytes sees of the store (docs/storage.md): one
// interface, whichever driver holds the bytes. No feature names a driver.
import type { Readable } from 'node:stream';
import type { EntityManager } from 'typeorm';
import type { BlobStoreKind } from '../config/app-config';

/** The injection token of the configured store. */
export const BLOB_STORE = Symbol('BLOB_STORE');

export interface StoredObject {
  key: string;
  bytes: number;
  /** When it was written: the garbage sweep's grace period counts from here. */
  modifiedAt: Date;
}

/** What a presigned URL makes the store answer with (the download's own headers). */
export interface ResponseHeaders {
  contentType: string;
  contentDisposition: string;
  cacheControl: string;
}

export interface BlobStore {
  readonly kind: BlobStoreKind;
  /**
   * Writes `data` under `key` unless an object is there already (never overwritten); true when
   * written. `tx`: called inside that transaction (the database store writes in it: a statement on
   * another connection would wait for it on the embedded database).
   */
  putIfAbsent(key: string, data: Buffer, tx?: EntityManager): Promise<boolean>;
  /** The whole object; null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /**
   * `length` bytes from `offset`, as a stream opened by one request to the store; null when there
   * is no object. The stream ends with an error when the object is shorter.
   */
  getRange(key: string, offset: number, length: number): Promise<Readable | null>;
  /** A GET URL valid `ttlSeconds` whose answer carries `headers`; only stores clients can reach (s3). */
  presign?(key: string, headers: ResponseHeaders, ttlSeconds: number): Promise<string>;
  /** Every object whose key starts with `prefix`, a page (one request) at a time, in no promised order. */
  list(prefix: string): AsyncIterable<StoredObject[]>;
  /** Removes the object; nothing when there is none. `tx` as for putIfAbsent. */
  delete(key: string, tx?: EntityManager): Promise<void>;
  /** Resolves when the store answers (readiness). */
  probe(): Promise<void>;
  close(): Promise<void>;
}
