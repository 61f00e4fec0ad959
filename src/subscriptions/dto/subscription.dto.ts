import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  registerDecorator,
  ValidateNested,
} from 'class-validator';
import { ID_SCHEMA, MAX_ID } from '../../common/http/id.pipe';
import { Distinct, MaxItems } from '../../common/http/input-limits';
import { NamespacePageQuery } from '../../common/http/pagination';
import { ScopedBodyDto, ScopedResourceDto } from '../../scoped/scoped-resource.dto';
import { VERSION_SCHEMA } from '../../skills/dto/skill.dto';
import { TAG_PATTERN } from '../../resolver';

export const MAX_SUBSCRIPTION_REFS = 100;

/** A selection pins a version or follows a tag, never both (docs/resolution.md#version-lifecycle). */
function NotWithVersion(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'notWithVersion',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown, args) => value == null || (args?.object as { version?: unknown }).version == null,
        defaultMessage: () => 'tag and version cannot both be sent: a selection follows a tag or pins a version',
      },
    });
}

/** Public skills live in `default`: a public selection naming another namespace is a contradiction. */
function PublicOnlyInDefault(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'publicOnlyInDefault',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown, args) =>
          value !== true || (args?.object as { namespace?: unknown }).namespace === 'default',
        defaultMessage: () => 'is_public true needs namespace default',
      },
    });
}

/** An explicit selection: exactly one scope, resolved as the subscription's owner. */
export class SubscriptionSkillRefDto {
  @ApiProperty({ example: 'pdf-tools', minLength: 1, maxLength: 64 })
  @IsString()
  @Length(1, 64)
  name: string;

  @ApiProperty({ example: 'default', description: "`default` (the owner's personal skill) or a group name" })
  @IsString()
  @Length(1, 200)
  namespace: string;

  @ApiProperty({ example: false, description: 'true: the public skill (namespace `default`)' })
  @IsBoolean()
  @PublicOnlyInDefault()
  is_public: boolean;

  @ApiPropertyOptional({ ...VERSION_SCHEMA, description: 'Pins this version; omitted: the latest' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  version?: number;

  @ApiPropertyOptional({
    type: String,
    maxLength: 32,
    pattern: TAG_PATTERN.source,
    example: 'stable',
    description: 'Follows this tag of the skill, instead of a `version`',
  })
  @IsOptional()
  @IsString()
  @Matches(TAG_PATTERN, { message: 'tag must match [a-z][a-z0-9.-]{0,31}' })
  @NotWithVersion()
  tag?: string;
}

/** The whole writable body, for POST and PUT alike. */
export class SubscriptionBodyDto extends ScopedBodyDto {
  @ApiProperty({ ...ID_SCHEMA, example: 3, description: 'A team the caller may read (else 404)' })
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  team_id: number;

  @ApiPropertyOptional({
    type: [SubscriptionSkillRefDto],
    maxItems: MAX_SUBSCRIPTION_REFS,
    description: 'Each name once; every entry must resolve for the owner (400 SKILL_SELECTION_INVALID)',
  })
  @IsOptional()
  @IsArray()
  @MaxItems(MAX_SUBSCRIPTION_REFS)
  @Distinct((s: SubscriptionSkillRefDto) => s.name, { message: 'skill_refs must not name a skill twice' })
  @ValidateNested({ each: true })
  @Type(() => SubscriptionSkillRefDto)
  skill_refs?: SubscriptionSkillRefDto[];
}

/** A valid body for POST and PUT (the team id is one the caller may read). */
export const SUBSCRIPTION_BODY_EXAMPLES = {
  subscription: {
    summary: 'A nightly job on the first team, selecting no skill of its own (works on a fresh install)',
    value: { name: 'nightly-greeting', namespace: 'default', team_id: 1, skill_refs: [] },
  },
  withSkill: {
    summary: "A nightly job selecting the owner's hello-world skill (the quickstart's package)",
    value: {
      name: 'nightly-greeting-with-skill',
      namespace: 'default',
      team_id: 1,
      skill_refs: [{ name: 'hello-world', namespace: 'default', is_public: false }],
    },
  },
};

/** PUT on subscription 1 (`nightly-greeting`): the same name, so trying the examples in order never clashes. */
export const SUBSCRIPTION_REPLACE_EXAMPLES = {
  subscription: {
    summary: 'Subscription 1 as it was made, no skill of its own (works on a fresh install)',
    value: { name: 'nightly-greeting', namespace: 'default', team_id: 1, skill_refs: [] },
  },
  withSkill: {
    summary: "Subscription 1 selecting the owner's hello-world skill (the quickstart's package)",
    value: {
      name: 'nightly-greeting',
      namespace: 'default',
      team_id: 1,
      skill_refs: [{ name: 'hello-world', namespace: 'default', is_public: false }],
    },
  },
};

export class SubscriptionDto extends ScopedResourceDto {
  @ApiProperty({ ...ID_SCHEMA, example: 3 }) team_id: number;
  @ApiProperty({ type: [SubscriptionSkillRefDto], description: '`version` only when pinned' })
  skill_refs: SubscriptionSkillRefDto[];
}

export class SubscriptionListDto {
  @ApiProperty({ type: [SubscriptionDto] }) items: SubscriptionDto[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class SubscriptionListQuery extends NamespacePageQuery {}
