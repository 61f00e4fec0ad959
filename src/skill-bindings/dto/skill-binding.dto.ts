import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ID_SCHEMA } from '../../common/http/id.pipe';
import { MaxItems } from '../../common/http/input-limits';
import {
  BINDING_EXCEPTION_TYPES,
  type BindingExceptionType,
  MAX_BINDING_EXCEPTIONS,
  MAX_EXCEPTION_VALUE_CHARS,
} from '../../resolver';

export class BindingExceptionDto {
  @ApiProperty({
    enum: BINDING_EXCEPTION_TYPES,
    example: 'mode',
    description: "`mode` matches the task's label `taskType` (else `type`); `team` its `team_id`",
  })
  @IsIn(BINDING_EXCEPTION_TYPES)
  type: BindingExceptionType;

  @ApiProperty({
    example: 'chat',
    minLength: 1,
    maxLength: MAX_EXCEPTION_VALUE_CHARS,
    description: 'The label value, or the team id as a decimal string (`12`)',
  })
  // Its length (in characters) is checked by the service's rule (exceptionProblems), once.
  @IsString()
  value: string;
}

export class PutSkillBindingDto {
  @ApiPropertyOptional({ default: false, description: 'Put the name in `preload_skills` too' })
  @IsOptional()
  @IsBoolean()
  preload?: boolean;

  @ApiPropertyOptional({
    type: [BindingExceptionDto],
    maxItems: MAX_BINDING_EXCEPTIONS,
    default: [],
    description: 'Tasks the binding skips: any one match is enough',
  })
  @IsOptional()
  @IsArray()
  @MaxItems(MAX_BINDING_EXCEPTIONS)
  @ValidateNested({ each: true })
  @Type(() => BindingExceptionDto)
  exceptions?: BindingExceptionDto[];
}

/** Valid bodies for a fresh install's skill 1 (the admin's hello-world). */
export const PUT_SKILL_BINDING_EXAMPLES = {
  binding: {
    summary: 'Always on and preloaded, except in chat tasks',
    value: { preload: true, exceptions: [{ type: 'mode', value: 'chat' }] },
  },
};

export class BindingTargetDto {
  @ApiProperty({ enum: ['user', 'group'], example: 'user' }) type: 'user' | 'group';
  @ApiPropertyOptional({ ...ID_SCHEMA, example: 1, description: 'For a user binding' }) user_id?: number;
  @ApiPropertyOptional({ ...ID_SCHEMA, example: 1, description: 'For a group binding' }) group_id?: number;
}

export class SkillBindingDto {
  @ApiProperty({ ...ID_SCHEMA, example: 1 }) id: number;
  @ApiProperty({ ...ID_SCHEMA, example: 1 }) skill_id: number;
  @ApiProperty({ example: 'hello-world', description: "The bound skill's name" }) name: string;
  @ApiProperty({ example: 'default' }) namespace: string;
  @ApiProperty({ example: false }) is_public: boolean;
  @ApiProperty({ type: BindingTargetDto }) target: BindingTargetDto;
  @ApiProperty({ example: true }) preload: boolean;
  @ApiProperty({ type: [BindingExceptionDto] }) exceptions: BindingExceptionDto[];
  @ApiProperty({ ...ID_SCHEMA, example: 1 }) created_by_user_id: number;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: string;
}

export class SkillBindingListDto {
  @ApiProperty({ type: [SkillBindingDto], description: 'By skill name' }) items: SkillBindingDto[];
}
