// Package bytes in an S3-compatible store (AWS S3, MinIO, Cloudflare R2, Ceph) through the AWS SDK
// (docs/storage.md#s3). Every key is under `S3_PREFIX`. Download URLs are signed for
// `S3_PUBLIC_ENDPOINT`, the host sandboxes reach, by the SDK's signer alone: a signature is a few
// HMACs, where building a GetObject command to sign costs ten times as much
// (docs/benchmarks.md#package-storage).
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import { pipeline, Readable, Transform } from 'node:stream';
import type { S3Settings } from '../config/app-config';
import type { BlobStore, ResponseHeaders, StoredObject } from './blob-store';

export interface S3Limits {
  /** Opening a connection to the store. */
  connectMs: number;
  /** One request, until its answer starts (retries included). */
  requestMs: number;
}

/** Where a signed URL points: the public endpoint's scheme and host, and the path before the key. */
interface UrlTarget {
  protocol: string;
  hostname: string;
  port?: number;
  /** `/<bucket>/<prefix>` with path-style addressing, else `/<prefix>`. */
  path: string;
}

/** RFC 3986 percent-encoding, as the signature's canonical query uses it. */
function escape(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function urlTarget(settings: S3Settings): UrlTarget {
  const endpoint = new URL(
    settings.publicEndpoint ?? settings.endpoint ?? `https://s3.${settings.region}.amazonaws.com`,
  );
  const pathStyle = settings.forcePathStyle;
  return {
    protocol: endpoint.protocol,
    hostname: pathStyle ? endpoint.hostname : `${settings.bucket}.${endpoint.hostname}`,
    port: endpoint.port ? Number(endpoint.port) : undefined,
    path: pathStyle ? `/${settings.bucket}/${settings.prefix}` : `/${settings.prefix}`,
  };
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly presigner: S3RequestPresigner;
  private readonly target: UrlTarget;

  constructor(
    private readonly settings: S3Settings,
    private readonly limits: S3Limits,
  ) {
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.accessKeyId
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey! } }
        : {}),
      // Checksums only where S3 requires them: MinIO and R2 refuse the ones the SDK would otherwise
      // add to every request, presigned URLs included. The service checks sha256 itself.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: {
        connectionTimeout: limits.connectMs,
        requestTimeout: limits.requestMs,
        throwOnRequestTimeout: true,
      },
    });
    this.presigner = new S3RequestPresigner({ ...this.client.config, signingName: 's3' });
    this.target = urlTarget(settings);
  }

  private key(key: string): string {
    return this.settings.prefix + key;
  }

  /** Runs one command, aborted when no answer has begun within the request limit (retries included). */
  private async send<T>(command: (options: { abortSignal: AbortSignal }) => Promise<T>): Promise<T> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.limits.requestMs);
    try {
      return await command({ abortSignal: abort.signal });
    } finally {
      clearTimeout(timer);
    }
  }

  async putIfAbsent(key: string, data: Buffer): Promise<boolean> {
    // A HEAD first: conditional writes (If-None-Match: *) are not served by every S3-compatible
    // store. Two writers racing past it write the same bytes (the key is their hash).
    try {
      await this.send((o) =>
        this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.key(key) }), o),
      );
      return false;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    await this.send((o) =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.key(key),
          Body: data,
          ContentLength: data.length,
          ContentType: 'application/zip',
        }),
        o,
      ),
    );
    return true;
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      const answer = await this.send((o) =>
        this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.key(key) }), o),
      );
      const bytes = await answer.Body!.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async getRange(key: string, offset: number, length: number): Promise<Readable | null> {
    if (length === 0) return Readable.from([]);
    let body: Readable;
    try {
      const answer = await this.send((o) =>
        this.client.send(
          new GetObjectCommand({
            Bucket: this.settings.bucket,
            Key: this.key(key),
            Range: `bytes=${offset}-${offset + length - 1}`,
          }),
          o,
        ),
      );
      body = answer.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
    let seen = 0;
    const out = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        seen += chunk.length;
        callback(seen > length ? new Error('the store answered more than the range asked for') : null, chunk);
      },
      flush(callback) {
        callback(seen === length ? null : new Error('the stored object is shorter than the range asked for'));
      },
    });
    pipeline(body, out, () => undefined);
    return out;
  }

  /**
   * A GET URL for the public endpoint, with the response headers as signed query overrides; the
   * same URL the SDK's getSignedUrl builds for a GetObject command (a test compares them).
   */
  async presign(key: string, headers: ResponseHeaders, ttlSeconds: number): Promise<string> {
    const signed = await this.presigner.presign(
      {
        method: 'GET',
        protocol: this.target.protocol,
        hostname: this.target.hostname,
        port: this.target.port,
        path: this.target.path + key,
        query: {
          'response-cache-control': headers.cacheControl,
          'response-content-disposition': headers.contentDisposition,
          'response-content-type': headers.contentType,
          'x-id': 'GetObject',
        },
        headers: {},
      },
      { expiresIn: ttlSeconds },
    );
    const signedQuery = signed.query ?? {};
    const query = Object.keys(signedQuery)
      .sort()
      .map((name) => `${escape(name)}=${escape(signedQuery[name] as string)}`)
      .join('&');
    const port = signed.port ? `:${signed.port}` : '';
    return `${signed.protocol}//${signed.hostname}${port}${signed.path}?${query}`;
  }

  async *list(prefix: string): AsyncIterable<StoredObject[]> {
    let token: string | undefined;
    do {
      const page = await this.send((o) =>
        this.client.send(
          new ListObjectsV2Command({
            Bucket: this.settings.bucket,
            Prefix: this.key(prefix),
            ContinuationToken: token,
          }),
          o,
        ),
      );
      const objects: StoredObject[] = [];
      for (const object of page.Contents ?? []) {
        if (!object.Key?.startsWith(this.settings.prefix)) continue;
        objects.push({
          key: object.Key.slice(this.settings.prefix.length),
          bytes: object.Size ?? 0,
          // No date: taken as new, so the sweep never collects it.
          modifiedAt: object.LastModified ?? new Date(),
        });
      }
      if (objects.length) yield objects;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(key: string): Promise<void> {
    await this.send((o) =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.key(key) }), o),
    );
  }

  async probe(): Promise<void> {
    await this.send((o) => this.client.send(new HeadBucketCommand({ Bucket: this.settings.bucket }), o));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
