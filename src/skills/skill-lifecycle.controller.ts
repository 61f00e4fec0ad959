import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Put } from '@nestjs/common';
import { ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiErrors, JSON_BODY_ERRORS, STORE_UNAVAILABLE } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { IdPipe } from '../common/http/id.pipe';
import { PutTagDto, TagDto, TagListDto, UpdateVersionStatusDto } from './dto/skill-lifecycle.dto';
import { VERSION_SCHEMA, VersionDto } from './dto/skill.dto';
import { SkillLifecycleService } from './skill-lifecycle.service';

const TAG_PARAM = {
  name: 'tag',
  description: '`[a-z][a-z0-9.-]{0,31}`; `latest` is reserved',
  example: 'stable',
} as const;
const VERSION_PARAM = {
  name: 'version',
  schema: { ...VERSION_SCHEMA, example: 1 },
  description: 'The version number (1: the first version of a skill)',
} as const;
const CHANGE_ERRORS = [{ code: 'FORBIDDEN', when: 'the caller may read the skill but not change it' }] as const;

@ApiTags('skills')
@ApiAuth()
@Controller('skills')
export class SkillLifecycleController {
  constructor(private readonly lifecycle: SkillLifecycleService) {}

  @Patch(':id/versions/:version')
  @ApiOperation({
    operationId: 'updateSkillVersionStatus',
    summary: 'Deprecate, yank, revoke or restore a version (docs/resolution.md#version-lifecycle)',
  })
  @ApiParam(VERSION_PARAM)
  @ApiBody({
    type: UpdateVersionStatusDto,
    examples: {
      deprecate: { summary: 'Deprecate, with why', value: { status: 'deprecated', message: 'Version 2 reads faster' } },
    },
  })
  @ApiOkResponse({ type: VersionDto })
  @ApiErrors(
    ...JSON_BODY_ERRORS,
    'VALIDATION_FAILED',
    ...CHANGE_ERRORS,
    'NOT_FOUND',
    'VERSION_REVOKED',
    'VERSION_TAGGED',
  )
  setStatus(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Param('version', IdPipe) version: number,
    @Body() body: UpdateVersionStatusDto,
  ): Promise<VersionDto> {
    return this.lifecycle.setStatus(caller, id, version, body);
  }

  @Delete(':id/versions/:version/content')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'purgeSkillVersionContent',
    summary: "Delete a revoked version's bytes from the package store (admins)",
    description:
      'The bytes stay while another version has the same ones. Afterwards its downloads and files answer 410 VERSION_REVOKED to everyone, admins too; its manifest stays. A URL handed out before lives until it expires (docs/storage.md#purge). Audited `skill_version.purge`.',
  })
  @ApiParam(VERSION_PARAM)
  @ApiNoContentResponse({ description: 'Purged (or purged before)' })
  @ApiErrors(
    { code: 'FORBIDDEN', when: 'the caller is not an admin' },
    { code: 'NOT_FOUND', when: 'no such skill (or one the caller may not read), or no such version' },
    'VERSION_NOT_REVOKED',
    ...STORE_UNAVAILABLE,
  )
  purge(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Param('version', IdPipe) version: number,
  ): Promise<void> {
    return this.lifecycle.purge(caller, id, version);
  }

  @Get(':id/tags')
  @ApiOperation({ operationId: 'listSkillTags', summary: "The skill's tags, by name" })
  @ApiOkResponse({ type: TagListDto })
  @ApiErrors('NOT_FOUND')
  listTags(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<TagListDto> {
    return this.lifecycle.listTags(caller, id);
  }

  @Put(':id/tags/:tag')
  @ApiOperation({ operationId: 'putSkillTag', summary: 'Point a tag at an active or deprecated version' })
  @ApiParam(TAG_PARAM)
  @ApiBody({ type: PutTagDto, examples: { stable: { summary: 'Point stable at version 1', value: { version: 1 } } } })
  @ApiOkResponse({ type: TagDto })
  @ApiErrors(
    ...JSON_BODY_ERRORS,
    { code: 'VALIDATION_FAILED', when: 'a bad or reserved tag name, or a bad `version`' },
    ...CHANGE_ERRORS,
    { code: 'NOT_FOUND', when: 'no such skill (or one the caller may not read), or no such version' },
    'VERSION_YANKED',
  )
  putTag(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Param('tag') tag: string,
    @Body() body: PutTagDto,
  ): Promise<TagDto> {
    return this.lifecycle.putTag(caller, id, tag, body.version);
  }

  @Delete(':id/tags/:tag')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteSkillTag', summary: 'Delete a tag (what followed it becomes TAG_NOT_FOUND)' })
  @ApiParam(TAG_PARAM)
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors({ code: 'VALIDATION_FAILED', when: 'a bad or reserved tag name' }, ...CHANGE_ERRORS, {
    code: 'NOT_FOUND',
    when: 'no such skill (or one the caller may not read), or no such tag',
  })
  deleteTag(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Param('tag') tag: string,
  ): Promise<void> {
    return this.lifecycle.deleteTag(caller, id, tag);
  }
}
