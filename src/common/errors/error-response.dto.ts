// The one error shape (written by ErrorFilter), described for the OpenAPI document.
import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode } from './domain-error';

export class ErrorResponseDto {
  @ApiProperty({ example: 400 }) statusCode: number;
  @ApiProperty({ example: 'Bad Request' }) error: string;
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    description: 'A list for VALIDATION_FAILED (every broken rule), else one sentence',
  })
  message: string | string[];
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'VALIDATION_FAILED' }) code: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) details?: Record<string, unknown>;
  @ApiProperty({ description: 'Also sent as X-Request-Id' }) requestId: string;
}

/** Documents error answers of an operation: each status with the codes it may carry and when. */
export function ApiErrors(errors: Array<{ status: number; codes: ErrorCode[]; when: string }>): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(ErrorResponseDto),
    ...errors.map(({ status, codes, when }) =>
      ApiResponse({
        status,
        description: `${codes.join(', ')}: ${when}`,
        content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorResponseDto) } } },
      }),
    ),
  );
}
