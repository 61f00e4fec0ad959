import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { IdPipe } from '../common/http/id.pipe';
import { CreateGroupDto, GroupDto, GroupListDto, MemberListDto, MembershipDto, SetMemberDto } from './dto/group.dto';
import { GroupsService } from './groups.service';

@ApiTags('groups')
@ApiAuth()
@Controller('groups')
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  @Post()
  @ApiOperation({ summary: 'Create a group; the creator becomes its Owner' })
  @ApiCreatedResponse({ type: GroupDto })
  create(@CurrentUser() caller: UserPrincipal, @Body() body: CreateGroupDto): Promise<GroupDto> {
    return this.groups.create(caller, body.name);
  }

  @Get()
  @ApiOperation({ summary: 'Groups where the caller has an effective role' })
  @ApiOkResponse({ type: GroupListDto })
  list(@CurrentUser() caller: UserPrincipal): Promise<GroupListDto> {
    return this.groups.list(caller);
  }

  @Get(':id')
  @ApiOkResponse({ type: GroupDto })
  get(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<GroupDto> {
    return this.groups.get(caller, id);
  }

  @Get(':id/members')
  @ApiOperation({ summary: 'Direct members (Reporter+)' })
  @ApiOkResponse({ type: MemberListDto })
  members(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<MemberListDto> {
    return this.groups.members(caller, id);
  }

  @Put(':id/members/:userId')
  @ApiOperation({ summary: 'Add a member or change a role (Maintainer+; the Owner role needs an Owner)' })
  @ApiOkResponse({ type: MembershipDto })
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
  @ApiOperation({ summary: 'Remove a member (Maintainer+, an Owner needs an Owner; anyone may leave)' })
  @ApiNoContentResponse()
  removeMember(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Param('userId', IdPipe) userId: number,
  ): Promise<void> {
    return this.groups.removeMember(caller, id, userId);
  }
}
