// A ghost's `skill_refs` / `preload_skill_refs` on input: objects keyed by skill name whose values
// are refs. Left to class-transformer, a Map of refs would skip the keys that name Map members
// (`keys`, `values`, `get`, `set`, ...), all valid skill names, so the map is rebuilt from the raw
// body and each ref is checked as its own DTO.
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  validateSync,
  ValidationArguments,
  ValidationError,
} from 'class-validator';
import { ID_SCHEMA, MAX_ID } from '../../common/http/id.pipe';
import { TAG_PATTERN } from '../../resolver';

export const MAX_REF_KEYS = 100;
export const MAX_SKILL_NAME = 64;

/** A ref as a client sends it: it pins `version` only when `pinned` is not false. */
export class GhostSkillRefInputDto {
  @ApiProperty({ ...ID_SCHEMA, example: 11, description: 'A skill of the name this ref is keyed by' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  skill_id: number;

  @ApiPropertyOptional({ description: "When sent, must be the skill's namespace (else SCOPE_MISMATCH)" })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  namespace?: string;

  @ApiPropertyOptional({ description: 'When sent, must agree with the skill (else SCOPE_MISMATCH)' })
  @IsOptional()
  @IsBoolean()
  is_public?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: MAX_ID,
    description: 'Pins this version unless `pinned` is false',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  version?: number;

  @ApiPropertyOptional({ description: 'false: follow the latest version even when `version` is sent' })
  @IsOptional()
  @IsBoolean()
  pinned?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 32,
    pattern: TAG_PATTERN.source,
    description:
      'Follow this tag of the skill; a ref that also pins (`version` sent, `pinned` not false) is refused (docs/resolution.md#version-lifecycle)',
  })
  @IsOptional()
  @IsString()
  @Matches(TAG_PATTERN, { message: 'tag must match [a-z][a-z0-9.-]{0,31}' })
  tag?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Accepted and ignored' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  content_hash?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Accepted and ignored (a ghost answer shows it)' })
  @IsOptional()
  @IsString()
  @MaxLength(16)
  status?: string;
}

export type SkillRefMap = Map<string, GhostSkillRefInputDto>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A plain object becomes a Map of ref DTOs (every own key kept); anything else is left for the validator to reject. */
export function toSkillRefMap(raw: unknown): unknown {
  if (!isPlainObject(raw)) return raw;
  return new Map<string, unknown>(
    Object.entries(raw).map(([name, ref]) => [
      name,
      isPlainObject(ref) ? plainToInstance(GhostSkillRefInputDto, ref) : ref,
    ]),
  );
}

/** Nested messages spelled as the validation pipe spells them: `skill_refs.pdf.skill_id: ...`. */
function refMessages(errors: ValidationError[], parent: string): string[] {
  return errors.flatMap((e) => {
    const path = `${parent}.${e.property}`;
    return [
      ...Object.values(e.constraints ?? {}).map((text) => `${path}: ${text}`),
      ...refMessages(e.children ?? [], path),
    ];
  });
}

/** Every rule the map breaks: its shape, its key count and lengths, and each ref's fields. */
export function skillRefMapProblems(value: unknown, property: string): string[] {
  if (!(value instanceof Map)) return [`${property} must be an object of refs keyed by skill name`];
  const problems: string[] = [];
  if (value.size > MAX_REF_KEYS) problems.push(`${property} must have at most ${MAX_REF_KEYS} keys`);
  const names = [...(value as Map<string, unknown>).keys()];
  if (names.some((name) => name.length < 1 || name.length > MAX_SKILL_NAME)) {
    problems.push(`${property} keys must be skill names of 1-${MAX_SKILL_NAME} characters`);
  }
  for (const [name, ref] of value as Map<string, unknown>) {
    const path = `${property}.${name}`;
    if (!(ref instanceof GhostSkillRefInputDto)) {
      problems.push(`${path} must be an object`);
      continue;
    }
    problems.push(...refMessages(validateSync(ref, { whitelist: true, forbidNonWhitelisted: true }), path));
    // A ref cannot pin and follow at once.
    if (ref.tag != null && ref.version != null && ref.pinned !== false) {
      problems.push(`${path}: a ref with a tag cannot also pin a version (send pinned: false, or no version)`);
    }
  }
  return problems;
}

/** Validates a ref map built by `toSkillRefMap`; every problem is listed in one message. */
function IsSkillRefMap(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isSkillRefMap',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => skillRefMapProblems(value, args.property).length === 0,
        defaultMessage: (args?: ValidationArguments) =>
          args ? skillRefMapProblems(args.value, args.property).join('; ') : 'invalid ref map',
      },
    });
}

/**
 * The decorators of a ref-map property. `@Type` (on a property declared as a Map) makes the default
 * transform build ref DTOs rather than guess at plain objects; `@Transform` then rebuilds the map
 * from the raw body so that no key is lost.
 */
export function SkillRefMapProperty(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    Type(() => GhostSkillRefInputDto)(target, propertyName);
    Transform(({ obj, key }) => toSkillRefMap((obj as Record<string, unknown>)[key]), { toClassOnly: true })(
      target,
      propertyName,
    );
    IsSkillRefMap()(target, propertyName);
  };
}
