import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { IdPipe } from '../common/http/id.pipe';
import { ApiKeyListDto, CreatedApiKeyDto, CreatedUserDto, CreateUserDto, UserDto } from './dto/user.dto';
import { UsersService } from './users.service';

@ApiTags('users')
@ApiAuth()
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @ApiOperation({ summary: 'Create a user with a first API key (admin)' })
  @ApiCreatedResponse({ type: CreatedUserDto })
  create(@CurrentUser() caller: UserPrincipal, @Body() body: CreateUserDto): Promise<CreatedUserDto> {
    return this.users.create(caller, body.user_name, body.role);
  }

  @Get('me')
  @ApiOkResponse({ type: UserDto })
  me(@CurrentUser() caller: UserPrincipal): Promise<UserDto> {
    return this.users.me(caller);
  }

  @Post(':id/api-keys')
  @ApiOperation({ summary: 'Create an API key (admin or the user)' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  createKey(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<CreatedApiKeyDto> {
    return this.users.createKey(caller, id);
  }

  @Get(':id/api-keys')
  @ApiOkResponse({ type: ApiKeyListDto })
  listKeys(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<ApiKeyListDto> {
    return this.users.listKeys(caller, id);
  }

  @Delete(':id/api-keys/:keyId')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Revoked' })
  revokeKey(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Param('keyId', IdPipe) keyId: number,
  ): Promise<void> {
    return this.users.revokeKey(caller, id, keyId);
  }
}
