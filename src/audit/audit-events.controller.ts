import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiErrors } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { AuditEventsService } from './audit-events.service';
import { AuditEventListDto, AuditEventQuery } from './dto/audit-event.dto';

@ApiTags('audit')
@ApiAuth()
@Controller('audit-events')
export class AuditEventsController {
  constructor(private readonly events: AuditEventsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listAuditEvents',
    summary: 'Audit events, newest first (admins: all; group Owners: their namespaces and their children)',
  })
  @ApiOkResponse({ type: AuditEventListDto })
  @ApiErrors('VALIDATION_FAILED', {
    code: 'FORBIDDEN',
    when: 'neither an admin nor an Owner (of the `namespace` asked for)',
  })
  list(@CurrentUser() caller: UserPrincipal, @Query() query: AuditEventQuery): Promise<AuditEventListDto> {
    return this.events.list(caller, query);
  }
}
