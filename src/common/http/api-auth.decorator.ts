import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import { ApiErrors } from '../errors/error-response.dto';

export const API_KEY_SCHEME = 'api-key';
export const BEARER_SCHEME = 'bearer';

/**
 * Declares both credential schemes on an authenticated controller (or operation), so Swagger UI can
 * send them, and the answers every authenticated call may get: checking credentials reads the
 * database and counts failures per client address.
 */
export const ApiAuth = (): ClassDecorator & MethodDecorator =>
  applyDecorators(
    ApiSecurity(API_KEY_SCHEME),
    ApiBearerAuth(BEARER_SCHEME),
    ApiErrors('UNAUTHENTICATED', 'RATE_LIMITED', 'DATABASE_UNAVAILABLE'),
  );
