import { Module } from '@nestjs/common';
import { AuditEventsController } from './audit-events.controller';
import { AuditEventsRepository } from './audit-events.repository';
import { AuditEventsService } from './audit-events.service';

/** Reading the audit log; events are written by each change through common/audit. */
@Module({
  controllers: [AuditEventsController],
  providers: [AuditEventsRepository, AuditEventsService],
})
export class AuditModule {}
