// The first admin: ADMIN_API_KEY is installed at every boot; without it, an empty database gets a
// generated key written to a 0600 file in the data folder (the path is logged, never the key), and
// a database that has users but no working key file gets a warning saying how to get back in.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { hashSecret, SHOWN_PREFIX_LENGTH } from '../auth/secrets';
import { AppLogger } from '../common/logging/app-logger';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { newApiKey } from './users.service';
import { UsersRepository } from './users.repository';

export const ADMIN_USER_NAME = 'admin';
export const ADMIN_KEY_FILE = 'admin-api-key';

@Injectable()
export class AdminBootstrap {
  constructor(
    private readonly users: UsersRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly logger: AppLogger,
  ) {}

  async run(): Promise<void> {
    if (this.config.adminApiKey) {
      const secret = this.config.adminApiKey;
      const { created } = await this.users.upsertBootstrapAdmin(ADMIN_USER_NAME, {
        keyHash: hashSecret(secret),
        prefix: secret.slice(0, SHOWN_PREFIX_LENGTH),
      });
      this.logger.write('info', 'admin key from ADMIN_API_KEY installed', { user_name: ADMIN_USER_NAME, created });
      return;
    }
    const path = join(this.config.dataDir, ADMIN_KEY_FILE);
    if ((await this.users.countUsers()) > 0) {
      // Keys are stored hashed: the file is the only copy the service could point to. Without a
      // working one, a lost key would otherwise go unnoticed until someone needs the admin.
      if (!(await this.keyFileWorks(path))) {
        this.logger.write(
          'warn',
          'ADMIN_API_KEY is unset and the data folder holds no working admin key; if the admin key is lost, ' +
            'set ADMIN_API_KEY (24 to 256 printable characters) and restart: it is installed as the admin key at boot',
          { user_name: ADMIN_USER_NAME, key_file: path },
        );
      }
      return;
    }
    const { secret, key } = newApiKey();
    await this.users.upsertBootstrapAdmin(ADMIN_USER_NAME, key);
    mkdirSync(this.config.dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(path, secret + '\n', { mode: 0o600 });
    this.logger.write('warn', 'generated the first admin API key; read it from the file and keep it safe', {
      user_name: ADMIN_USER_NAME,
      key_file: path,
    });
  }

  /** Whether the key file is there and its key still opens the admin's routes (not revoked or replaced). */
  private async keyFileWorks(path: string): Promise<boolean> {
    let secret: string;
    try {
      secret = readFileSync(path, 'utf8').trim();
    } catch {
      return false;
    }
    return secret !== '' && this.users.isActiveAdminKey(hashSecret(secret));
  }
}
