// The global ValidationPipe: unknown fields rejected, every broken rule listed in VALIDATION_FAILED.
import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError } from '../errors/domain-error';
import { jsonBudgetProblems } from '../input-hygiene';
import { countLimitProblems } from './input-limits';
import { UnreadBody } from './json-body';

function flatten(errors: ValidationError[], parent = ''): string[] {
  const messages: string[] = [];
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    for (const text of Object.values(error.constraints ?? {})) {
      messages.push(parent ? `${path}: ${text}` : text);
    }
    if (error.children?.length) messages.push(...flatten(error.children, path));
  }
  return messages;
}

/**
 * Validates bodies and queries, and refuses a body sent as another media type than the route
 * reads (415, docs/api.md#media-types); path params are left to their own pipes (IdPipe answers 404).
 * Before any per-item rule: the budget walk (form fields too, which no middleware sees) and the
 * DTO's declared counts, so no body costs more than linear time.
 */
class BodyAndQueryValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body' && metadata.type !== 'query') return Promise.resolve(value);
    // A body the JSON parser left unread (another media type): refused before anything reads it.
    if (value instanceof UnreadBody) return Promise.reject(value.refusal());
    const problems = jsonBudgetProblems(value);
    if (!problems.length) problems.push(...countLimitProblems(metadata.metatype, value));
    if (problems.length) return Promise.reject(DomainError.validation(problems));
    return super.transform(value, metadata) as Promise<unknown>;
  }
}

export function createValidationPipe(): ValidationPipe {
  return new BodyAndQueryValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => DomainError.validation(flatten(errors)),
  });
}
