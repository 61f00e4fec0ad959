import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';

export const API_KEY_SCHEME = 'api-key';
export const BEARER_SCHEME = 'bearer';

/** Declares both credential schemes on an authenticated controller, so Swagger UI can send them. */
export const ApiAuth = (): ClassDecorator & MethodDecorator =>
  applyDecorators(ApiSecurity(API_KEY_SCHEME), ApiBearerAuth(BEARER_SCHEME));
