import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { ID_SCHEMA } from '../../common/http/id.pipe';
import { USER_ROLES, UserRole } from '../../access';

export const USER_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export class CreateUserDto {
  @ApiProperty({ example: 'alice', pattern: USER_NAME_PATTERN.source })
  @IsString()
  @Matches(USER_NAME_PATTERN, { message: 'user_name must match [a-z0-9][a-z0-9._-]{0,63}' })
  user_name: string;

  @ApiPropertyOptional({ enum: USER_ROLES, default: 'user' })
  @IsOptional()
  @IsIn(USER_ROLES)
  role?: UserRole;
}

export const CREATE_USER_EXAMPLES = {
  user: { summary: 'A user with the role user', value: { user_name: 'alice', role: 'user' } },
};

export class UserDto {
  @ApiProperty({ ...ID_SCHEMA, example: 2 }) id: number;
  @ApiProperty({ example: 'alice' }) user_name: string;
  @ApiProperty({ enum: USER_ROLES }) role: UserRole;
}

export class CreatedUserDto extends UserDto {
  @ApiProperty({ example: 'srk_Jx3…', description: 'The first API key of the user; shown once' })
  api_key: string;
}

export class CreatedApiKeyDto {
  @ApiProperty({ ...ID_SCHEMA, example: 5 }) id: number;
  @ApiProperty({ example: 'srk_Jx3…', description: 'Shown once; only its SHA-256 is kept' })
  api_key: string;
}

export class ApiKeyDto {
  @ApiProperty({ ...ID_SCHEMA, example: 5 }) id: number;
  @ApiProperty({ example: 'srk_Jx3Qa9Lm', description: 'The first 12 characters of the key' })
  prefix: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  last_used_at: string | null;
}

export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeyDto] }) items: ApiKeyDto[];
}
