// The bodies and answers of tool-check (docs/tool-policy.md#tool-check) and of the VeADK remote-skills document.
import { MaxItems } from '../../common/http/input-limits';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  buildMessage,
  IsArray,
  IsObject,
  IsString,
  MaxLength,
  MinLength,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';
import { type CallCode, MAX_COMMAND_BYTES } from '../../policy';
import { ID_SCHEMA } from '../../common/http/id.pipe';
import { ALLOWED_TOOLS_PROPERTY, RequiresDto, VERSION_SCHEMA } from '../../skills/dto/skill.dto';

/** A task's resolved set may hold more names than one ghost (several bots, labels, a subscription). */
export const MAX_TOOL_CHECK_SKILLS = 256;
/** Tools a bot offers, MCP tools included. */
export const MAX_TOOL_CHECK_TOOLS = 512;
export const MAX_TOOL_NAME_LENGTH = 256;

/** Optional, but when sent it must be the right type: `null` is not "absent". */
const Sent = (): PropertyDecorator => ValidateIf((_object, value) => value !== undefined);

/** A string of at most `max` bytes of UTF-8 (the unit the contract counts a command in). */
function MaxUtf8Bytes(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxUtf8Bytes',
      constraints: [max],
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || Buffer.byteLength(value, 'utf8') <= max,
        defaultMessage: buildMessage((each) => `${each}$property must be at most $constraint1 bytes of UTF-8`, options),
      },
    },
    options,
  );
}

export class ToolCallDto {
  @ApiProperty({ example: 'Bash', minLength: 1, maxLength: MAX_TOOL_NAME_LENGTH, description: 'The tool called' })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TOOL_NAME_LENGTH)
  tool: string;

  @ApiPropertyOptional({
    example: 'git status',
    description: `The command (or other argument) the patterns constrain; at most ${MAX_COMMAND_BYTES} bytes of UTF-8`,
  })
  @Sent()
  @IsString()
  @MaxUtf8Bytes(MAX_COMMAND_BYTES)
  command?: string;
}

export class ToolCheckBody {
  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_TOOL_CHECK_SKILLS,
    example: ['pdf-tools'],
    description: "Names of the task's resolved set; default: the task's preload_skills",
  })
  @Sent()
  @IsArray()
  @MaxItems(MAX_TOOL_CHECK_SKILLS)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  skills?: string[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_TOOL_CHECK_TOOLS,
    example: ['Read', 'Bash', 'Write'],
    description: 'The tools the bot offers (T); visible_tools keeps their spelling and order',
  })
  @Sent()
  @IsArray()
  @MaxItems(MAX_TOOL_CHECK_TOOLS)
  @IsString({ each: true })
  @MaxLength(MAX_TOOL_NAME_LENGTH, { each: true })
  tools?: string[];

  @ApiPropertyOptional({ type: ToolCallDto, description: 'A call to check against every active skill' })
  @Sent()
  @IsObject()
  @ValidateNested()
  @Type(() => ToolCallDto)
  call?: ToolCallDto;
}

/** Valid bodies for any task, then for one whose resolved set holds `hello-world` (the quickstart's). */
export const TOOL_CHECK_EXAMPLES = {
  call: {
    summary: "May the bot run `git status` with Bash while the task's preloaded skills are active?",
    value: { tools: ['Read', 'Bash', 'Write'], call: { tool: 'Bash', command: 'git status' } },
  },
  withSkill: {
    summary: 'May the bot run `echo hello` with Bash while hello-world is active?',
    value: { skills: ['hello-world'], tools: ['Read', 'Bash', 'Write'], call: { tool: 'Bash', command: 'echo hello' } },
  },
};

export class ToolCheckSkillDto {
  @ApiProperty({ example: 'pdf-tools' }) name: string;
  @ApiProperty({ ...ID_SCHEMA, example: 11 }) skill_id: number;
  @ApiProperty({ ...VERSION_SCHEMA, example: 2 }) version: number;
  @ApiProperty(ALLOWED_TOOLS_PROPERTY) allowed_tools: string[] | null;
}

export class CallVerdictDto {
  @ApiProperty() allowed: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['TOOL_NOT_ALLOWED', 'COMMAND_COMPOUND', 'COMMAND_NOT_ALLOWED', 'POLICY_TOO_COMPLEX'],
    description:
      'null when allowed; POLICY_TOO_COMPLEX when matching the command against every pattern of the active skills could pass the per-call budget (the call is refused without matching)',
  })
  code: CallCode | null;
  @ApiProperty({ type: [String], description: 'The skills that refused, sorted' })
  denied_by: string[];
}

export class ToolCheckAnswerDto {
  @ApiProperty({ type: [ToolCheckSkillDto], description: 'The active skills, in name order' })
  skills: ToolCheckSkillDto[];
  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['Read'],
    description:
      'null when nothing restricts and no tools were sent; with tools: the sent names every restricting skill allows, in the order sent; without: the common tool names, spelled as the first restricting skill (by name) writes them, sorted',
  })
  visible_tools: string[] | null;
  @ApiProperty({ type: RequiresDto, description: 'The union over the active skills' })
  requires: RequiresDto;
  @ApiPropertyOptional({ type: CallVerdictDto, description: 'Present when the request has a call' })
  call?: CallVerdictDto;
}

export class RemoteSkillDto {
  @ApiProperty({ example: 'pdf-tools' }) name: string;
  @ApiProperty({ example: 'Fill in and read PDF forms.' }) description: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { type: 'object' },
    description: 'metadata.input_schema when a mapping whose type is object, else {"type": "object"}',
  })
  input_schema: Record<string, unknown>;
  @ApiPropertyOptional({ description: 'metadata.display_name when a non-empty string' }) display_name?: string;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 1800,
    description: 'metadata.timeout when an integer 1-1800',
  })
  timeout?: number;
}

export class RemoteSkillsDto {
  @ApiProperty({ type: [RemoteSkillDto], description: "The task's resolved skill_refs, in name order" })
  remote_skills: RemoteSkillDto[];
}
