// The git remote the services read through, built once from the configuration.
import type { Provider } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { GitRemote } from './git/git-remote';
import type { GitRemoteReader } from './git/git-remote.types';

export const GIT_REMOTE = Symbol('GIT_REMOTE');

export const gitRemoteProvider: Provider<GitRemoteReader> = {
  provide: GIT_REMOTE,
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => new GitRemote(config.git),
};
