// The routes of skill bindings: a user's own (`/users/me/skill-bindings`) and a group's
// (`/groups/{id}/skill-bindings`). Task tokens get 404 on all of them (no @AllowTaskToken).
import { Body, Controller, Delete, Get, HttpCode, Param, Put, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../auth/auth.decorators';
import { SelfInvalidatingRoute } from '../cache/write-invalidation.interceptor';
import type { UserPrincipal } from '../auth/principal';
import { ApiErrors, JSON_BODY_ERRORS } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { IdPipe } from '../common/http/id.pipe';
import {
  PUT_SKILL_BINDING_EXAMPLES,
  PutSkillBindingDto,
  SkillBindingDto,
  SkillBindingListDto,
} from './dto/skill-binding.dto';
import { SkillBindingsService } from './skill-bindings.service';

const PUT_ERRORS = [
  {
    code: 'VALIDATION_FAILED',
    when: 'a bad body, over 20 exceptions, a value outside 1-128 characters, or a 101st binding',
  },
  ...JSON_BODY_ERRORS,
] as const;

@ApiTags('skill-bindings')
@ApiAuth()
@Controller('users/me/skill-bindings')
export class UserSkillBindingsController {
  constructor(private readonly bindings: SkillBindingsService) {}

  @Get()
  @ApiOperation({ operationId: 'listMySkillBindings', summary: "The caller's own skill bindings, by skill name" })
  @ApiOkResponse({ type: SkillBindingListDto })
  list(@CurrentUser() caller: UserPrincipal): Promise<SkillBindingListDto> {
    return this.bindings.listMine(caller);
  }

  @Put(':skillId')
  @SelfInvalidatingRoute()
  @ApiOperation({
    operationId: 'putMySkillBinding',
    summary: 'Bind a skill the caller may read to every task they create (PUT replaces the whole binding)',
  })
  @ApiBody({ type: PutSkillBindingDto, examples: PUT_SKILL_BINDING_EXAMPLES })
  @ApiCreatedResponse({ type: SkillBindingDto, description: 'Created' })
  @ApiOkResponse({ type: SkillBindingDto, description: 'Replaced' })
  @ApiErrors(...PUT_ERRORS, { code: 'NOT_FOUND', when: 'no such skill, or one the caller may not read' })
  async put(
    @CurrentUser() caller: UserPrincipal,
    @Param('skillId', IdPipe) skillId: number,
    @Body() body: PutSkillBindingDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SkillBindingDto> {
    const { binding, created } = await this.bindings.putMine(caller, skillId, body);
    res.status(created ? 201 : 200);
    return binding;
  }

  @Delete(':skillId')
  @SelfInvalidatingRoute()
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteMySkillBinding', summary: "Remove one of the caller's skill bindings" })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors({ code: 'NOT_FOUND', when: 'the caller has no binding of that skill' })
  remove(@CurrentUser() caller: UserPrincipal, @Param('skillId', IdPipe) skillId: number): Promise<void> {
    return this.bindings.removeMine(caller, skillId);
  }
}

@ApiTags('skill-bindings')
@ApiAuth()
@Controller('groups/:id/skill-bindings')
export class GroupSkillBindingsController {
  constructor(private readonly bindings: SkillBindingsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listGroupSkillBindings',
    summary: "A group's skill bindings, by skill name (Reporter+)",
  })
  @ApiOkResponse({ type: SkillBindingListDto })
  @ApiErrors({ code: 'NOT_FOUND', when: 'no such group, or the caller has no role in it' })
  list(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<SkillBindingListDto> {
    return this.bindings.listOfGroup(caller, id);
  }

  @Put(':skillId')
  @SelfInvalidatingRoute()
  @ApiOperation({
    operationId: 'putGroupSkillBinding',
    summary: "Bind a skill of the group's namespace, or a public one, to every task of its teams (Developer+)",
  })
  @ApiBody({ type: PutSkillBindingDto, examples: PUT_SKILL_BINDING_EXAMPLES })
  @ApiCreatedResponse({ type: SkillBindingDto, description: 'Created' })
  @ApiOkResponse({ type: SkillBindingDto, description: 'Replaced' })
  @ApiErrors(
    ...PUT_ERRORS,
    { code: 'SKILL_SELECTION_INVALID', when: "a skill neither of the group's namespace nor public (SCOPE_MISMATCH)" },
    { code: 'FORBIDDEN', when: 'below Developer in the group' },
    { code: 'NOT_FOUND', when: 'no such group (or no role in it), or a skill the caller may not read' },
  )
  async put(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Param('skillId', IdPipe) skillId: number,
    @Body() body: PutSkillBindingDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SkillBindingDto> {
    const { binding, created } = await this.bindings.putForGroup(caller, id, skillId, body);
    res.status(created ? 201 : 200);
    return binding;
  }

  @Delete(':skillId')
  @SelfInvalidatingRoute()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteGroupSkillBinding',
    summary: "Remove a group's skill binding (Maintainer+, or its creator while Developer+)",
  })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(
    { code: 'FORBIDDEN', when: 'below Maintainer, and not its creator while Developer+' },
    { code: 'NOT_FOUND', when: 'no such group (or no role in it), or no binding of that skill' },
  )
  remove(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Param('skillId', IdPipe) skillId: number,
  ): Promise<void> {
    return this.bindings.removeForGroup(caller, id, skillId);
  }
}
