// The real application (AppModule + app.setup) on a fresh database, with its log lines captured.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createApp } from '../../src/app.setup';
import { AppLogger } from '../../src/common/logging/app-logger';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { ChangeGeneration } from '../../src/cache/change-generation';
import { CHANGE_CHANNEL } from '../../src/cache/change-listener';
import { freshDatabase, isServerMode, TestDatabase, withClient } from './database';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  db: TestDatabase;
  logs: string[];
  http: ReturnType<typeof request>;
  /** Tells the app that rows were written behind its back (as the change listener would). */
  changed(): void;
  /**
   * Waits until the app has heard every change committed before the call. On a server, the app
   * also hears its own writes through the change listener, a little after their answers: heard
   * then, a write drops what was cached after it. Nothing to wait for on the embedded database.
   */
  heard(): Promise<void>;
  close(): Promise<void>;
}

/** Ids for heard(): ghost ids no row has (a notification for one drops nothing cached). */
let nextMarker = Number.MAX_SAFE_INTEGER;

/**
 * PostgreSQL delivers notifications in commit order, so once the listener hears a marker sent
 * now, it has heard every change committed before it.
 */
async function heardBy(app: NestExpressApplication, url: string): Promise<void> {
  const marker = nextMarker--;
  const heard = new Promise<void>((resolve) =>
    app.get(ChangeGeneration).onGhostChange((ghostId) => {
      if (ghostId === marker) resolve();
    }),
  );
  await withClient(url, (c) => c.query(`NOTIFY ${CHANGE_CHANNEL}, 'ghost:${marker}'`));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the change listener did not hear a marker within 5 s')), 5_000);
  });
  await Promise.race([heard, late]).finally(() => clearTimeout(timer));
}

export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const db = await freshDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'sr-test-'));
  const config = loadConfig({
    ADMIN_API_KEY: ADMIN_KEY,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    DB_POOL_SIZE: '4',
    ...env,
  });
  const logs: string[] = [];
  const logger = new AppLogger(config.logLevel, 'json', (line) => logs.push(line));
  const app = await createApp(config, { databaseUrl: db.url, logger, listenForChanges: isServerMode() });
  const server = app.getHttpServer();
  return {
    app,
    config,
    db,
    logs,
    http: request(server),
    changed: () => app.get(ChangeGeneration).bump(),
    heard: () => (isServerMode() ? heardBy(app, db.url) : Promise.resolve()),
    close: async () => {
      await app.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Headers that authenticate as `key`. */
export function as(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

export interface TestUser {
  id: number;
  key: string;
  name: string;
}

export async function createUser(t: TestApp, name: string, role: 'user' | 'admin' = 'user'): Promise<TestUser> {
  const res = await t.http.post('/api/users').set(as(ADMIN_KEY)).send({ user_name: name, role });
  if (res.status !== 201) throw new Error(`creating ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, key: res.body.api_key, name };
}

/** Asserts the one error shape and returns the body. */
export function expectError(res: request.Response, status: number, code: string): Record<string, unknown> {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.body).toEqual(
    expect.objectContaining({ statusCode: status, code, error: expect.any(String), requestId: expect.any(String) }),
  );
  expect(res.headers['x-request-id']).toBe(res.body.requestId);
  return res.body;
}
