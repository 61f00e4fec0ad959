import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
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
  CREATE_GROUP_EXAMPLES,
  CreateGroupDto,
  GroupDto,
  GroupListDto,
  MemberListDto,
  MembershipDto,
  SET_MEMBER_EXAMPLES,
  SetMemberDto,
} from './dto/group.dto';
import { GroupsService } from './groups.service';

@ApiTags('groups')
@ApiAuth()
@Controller('groups')
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  @Post()
  @ApiOperation({ operationId: 'createGroup', summary: 'Create a group; the creator becomes its Owner' })
  @ApiBody({ type: CreateGroupDto, examples: CREATE_GROUP_EXAMPLES })
  @ApiCreatedResponse({ type: GroupDto })
  @ApiErrors(
    { code: 'VALIDATION_FAILED', when: 'a bad, reserved or too deep name' },
    { code: 'FORBIDDEN', when: 'a child group, without Maintainer+ on its parent' },
    { code: 'NOT_FOUND', when: 'the parent does not exist or the caller has no role there' },
    'GROUP_EXISTS',
    ...JSON_BODY_ERRORS,
  )
  create(@CurrentUser() caller: UserPrincipal, @Body() body: CreateGroupDto): Promise<GroupDto> {
    return this.groups.create(caller, body.name);
  }

  @Get()
  @ApiOperation({ operationId: 'listGroups', summary: 'Groups where the caller has an effective role' })
  @ApiOkResponse({ type: GroupListDto })
  list(@CurrentUser() caller: UserPrincipal): Promise<GroupListDto> {
    return this.groups.list(caller);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getGroup', summary: 'A group where the caller has a role, with that role' })
  @ApiOkResponse({ type: GroupDto })
  @ApiErrors('NOT_FOUND')
  get(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<GroupDto> {
    return this.groups.get(caller, id);
  }

  @Get(':id/members')
  @ApiOperation({ operationId: 'listGroupMembers', summary: 'Direct members (Reporter+)' })
  @ApiOkResponse({ type: MemberListDto })
  @ApiErrors('NOT_FOUND')
  members(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<MemberListDto> {
    return this.groups.members(caller, id);
  }

  @Put(':id/members/:userId')
  @ApiOperation({
    operationId: 'setGroupMember',
    summary: 'Add a member or change a role (Maintainer+; the Owner role needs an Owner)',
  })
  @ApiBody({ type: SetMemberDto, examples: SET_MEMBER_EXAMPLES })
  @ApiOkResponse({ type: MembershipDto })
  @ApiErrors(
    'VALIDATION_FAILED',
    { code: 'FORBIDDEN', when: 'below Maintainer, or granting or changing Owner without being an Owner' },
    { code: 'NOT_FOUND', when: 'no such group (or no role in it), or no such user' },
    'LAST_OWNER',
    ...JSON_BODY_ERRORS,
  )
  setMember(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Param('userId', IdPipe) userId: number,
    @Body() body: SetMemberDto,
  ): Promise<MembershipDto> {
    return this.groups.setMember(caller, id, userId, body.role);
  }

  @Delete(':id/members/:userId')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'removeGroupMember',
    summary: 'Remove a member (Maintainer+, an Owner needs an Owner; anyone may leave)',
  })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(
    { code: 'FORBIDDEN', when: 'below Maintainer, or removing an Owner without being an Owner' },
    { code: 'NOT_FOUND', when: 'no such group (or no role in it), or no such member' },
    'LAST_OWNER',
  )
  removeMember(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Param('userId', IdPipe) userId: number,
  ): Promise<void> {
    return this.groups.removeMember(caller, id, userId);
  }
}
