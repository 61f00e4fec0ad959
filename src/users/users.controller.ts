import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiErrors, JSON_BODY_ERRORS } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { IdPipe } from '../common/http/id.pipe';
import {
  ApiKeyListDto,
  CREATE_USER_EXAMPLES,
  CreatedApiKeyDto,
  CreatedUserDto,
  CreateUserDto,
  UserDto,
} from './dto/user.dto';
import { UsersService } from './users.service';

@ApiTags('users')
@ApiAuth()
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @ApiOperation({ operationId: 'createUser', summary: 'Create a user with a first API key (admin)' })
  @ApiBody({ type: CreateUserDto, examples: CREATE_USER_EXAMPLES })
  @ApiCreatedResponse({ type: CreatedUserDto })
  @ApiErrors(
    'VALIDATION_FAILED',
    { code: 'FORBIDDEN', when: 'the caller is not an admin' },
    'USER_EXISTS',
    ...JSON_BODY_ERRORS,
  )
  create(@CurrentUser() caller: UserPrincipal, @Body() body: CreateUserDto): Promise<CreatedUserDto> {
    return this.users.create(caller, body.user_name, body.role);
  }

  @Get('me')
  @ApiOperation({ operationId: 'getCurrentUser', summary: 'The calling user (not for task tokens)' })
  @ApiOkResponse({ type: UserDto })
  me(@CurrentUser() caller: UserPrincipal): Promise<UserDto> {
    return this.users.me(caller);
  }

  @Post(':id/api-keys')
  @ApiOperation({ operationId: 'createApiKey', summary: 'Create an API key, shown once (admin or the user)' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  @ApiErrors({ code: 'NOT_FOUND', when: 'no such user, or another user (for a caller who is not an admin)' })
  createKey(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<CreatedApiKeyDto> {
    return this.users.createKey(caller, id);
  }

  @Get(':id/api-keys')
  @ApiOperation({ operationId: 'listApiKeys', summary: "A user's active keys, by prefix (admin or the user)" })
  @ApiOkResponse({ type: ApiKeyListDto })
  @ApiErrors({ code: 'NOT_FOUND', when: 'no such user, or another user (for a caller who is not an admin)' })
  listKeys(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<ApiKeyListDto> {
    return this.users.listKeys(caller, id);
  }

  @Delete(':id/api-keys/:keyId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'revokeApiKey', summary: 'Revoke an API key (admin or the user)' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiErrors({ code: 'NOT_FOUND', when: 'no such user or key, or another user (for a caller who is not an admin)' })
  revokeKey(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Param('keyId', IdPipe) keyId: number,
  ): Promise<void> {
    return this.users.revokeKey(caller, id, keyId);
  }
}
