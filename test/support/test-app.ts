// The real application (AppModule + app.setup) on a fresh database, with its log lines captured.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createApp } from '../../src/app.setup';
import { AppLogger } from '../../src/common/logging/app-logger';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { ChangeGeneration } from '../../src/common/cache/change-generation';
import { freshDatabase, isServerMode, TestDatabase } from './database';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  db: TestDatabase;
  logs: string[];
  http: ReturnType<typeof request>;
  /** Tells the app that rows were written behind its back (as the change listener would). */
  changed(): void;
  close(): Promise<void>;
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
