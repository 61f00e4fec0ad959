import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyUsageRecorder } from './api-key-usage.recorder';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { AuthGuard } from './auth.guard';
import { Authenticator } from './authenticator.service';
import { CredentialCheck } from './credential-check.service';
import { CredentialsRepository } from './credentials.repository';

@Global()
@Module({
  providers: [
    CredentialsRepository,
    ApiKeyUsageRecorder,
    Authenticator,
    AuthFailureLimiter,
    CredentialCheck,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [Authenticator, AuthFailureLimiter, CredentialCheck],
})
export class AuthModule {}
