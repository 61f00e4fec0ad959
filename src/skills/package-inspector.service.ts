// Package inspection for the HTTP layer: the worker pool (sized to the cores, admission capped at
// twice that per replica) and a cap on the uploads one user may have in progress at once.
import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, OnModuleDestroy } from '@nestjs/common';
import { Request } from 'express';
import { Observable, finalize } from 'rxjs';
import type { Principal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import type { PackageInspection } from '../package/inspect-package';
import { InspectionPool, InspectionPoolFullError } from '../package/inspection-pool';

const RETRY_AFTER_SECONDS = 1;

function busy(message: string): DomainError {
  return new DomainError('RATE_LIMITED', message, { retry_after: RETRY_AFTER_SECONDS });
}

@Injectable()
export class PackageInspector implements OnModuleDestroy {
  private readonly pool: InspectionPool;
  private readonly uploads = new Map<number, number>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const { workers, deadlineMs } = config.inspection;
    this.pool = new InspectionPool({ workers, maxInFlight: 2 * workers, deadlineMs });
  }

  async inspect(bytes: Buffer): Promise<PackageInspection> {
    try {
      return await this.pool.inspect(bytes, this.config.packageLimits);
    } catch (err) {
      if (err instanceof InspectionPoolFullError) throw busy(err.message);
      throw err;
    }
  }

  /** Takes one of the caller's upload slots; the release function gives it back. */
  admitUpload(userId: number): () => void {
    const current = this.uploads.get(userId) ?? 0;
    if (current >= this.config.inspection.maxUploadsPerUser) {
      throw busy(`At most ${this.config.inspection.maxUploadsPerUser} uploads per user may run at once`);
    }
    this.uploads.set(userId, current + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.uploads.get(userId) ?? 1) - 1;
      if (left > 0) this.uploads.set(userId, left);
      else this.uploads.delete(userId);
    };
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.close();
  }
}

/** Placed before the multipart interceptor, so the slot is held while the body arrives too. */
@Injectable()
export class UploadSlotInterceptor implements NestInterceptor {
  constructor(private readonly inspector: PackageInspector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const principal = context.switchToHttp().getRequest<Request & { principal?: Principal }>().principal;
    if (principal?.kind !== 'user') return next.handle();
    const release = this.inspector.admitUpload(principal.userId);
    return next.handle().pipe(finalize(release));
  }
}
