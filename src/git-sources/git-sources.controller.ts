import { clientGone } from '../common/http/client-gone';
import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiErrors, ErrorCase, JSON_BODY_ERRORS, STORE_UNAVAILABLE } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { IdPipe } from '../common/http/id.pipe';
import { VersionDto } from '../skills/dto/skill.dto';
import { ImportResultDto, ImportSkillsBody, SkillSourceDto } from './dto/git-source.dto';
import { GitImportsService } from './git-imports.service';
import { SkillSourcesService } from './skill-sources.service';

/** What reading a remote may answer (docs/publishing.md#errors). */
const REMOTE_ERRORS: ErrorCase[] = [
  'GIT_URL_INVALID',
  'GIT_HOST_NOT_ALLOWED',
  'GIT_REF_NOT_FOUND',
  'GIT_PATH_NOT_FOUND',
  'GIT_FETCH_TOO_LARGE',
  'GIT_FETCH_FAILED',
  'GIT_TIMEOUT',
  {
    code: 'RATE_LIMITED',
    when: 'another import, check or update of the caller is running, or 2 run on this replica; wait `Retry-After`',
    example: 'IMPORTS_BUSY',
  },
];

@ApiTags('skills')
@ApiAuth()
@Controller('skills')
export class GitSourcesController {
  constructor(
    private readonly imports: GitImportsService,
    private readonly sources: SkillSourcesService,
  ) {}

  @Post('imports')
  @ApiOperation({
    operationId: 'importSkills',
    summary: 'Import skills from a folder of a git repository, pinned to the commit the ref names now',
    description:
      'A folder with SKILL.md is one skill; a folder without one imports each child folder that has one (at most 50). Each is published as an upload of that folder would be, with the same rights (`namespace`, `public`) and rules; a skill of the same name in the scope gets a version, or nothing when its files are unchanged. 201 when any skill was created or versioned, else 200. Audited `skill.import` (docs/publishing.md#importing-from-git).',
  })
  @ApiBody({
    type: ImportSkillsBody,
    examples: {
      monorepo: {
        summary: 'Every skill of a folder, at a branch',
        value: { url: 'https://github.com/acme/skills.git', ref: 'main', path: 'skills' },
      },
      pinned: {
        summary: 'One skill, at a commit, in a group',
        value: {
          url: 'https://git.example.com/team/pdf-tools.git',
          ref: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
          namespace: 'team-a',
        },
      },
    },
  })
  @ApiCreatedResponse({ type: ImportResultDto, description: 'At least one skill created or versioned' })
  @ApiOkResponse({ type: ImportResultDto, description: 'Nothing new: every skill unchanged (or invalid)' })
  @ApiErrors(
    ...JSON_BODY_ERRORS,
    { code: 'VALIDATION_FAILED', when: 'a missing `url`, a bad `namespace`, or `public: true` outside `default`' },
    { code: 'SKILL_INVALID', when: 'no skill of the folder is valid (`details.errors`), or the folder holds none' },
    'GIT_TOO_MANY_SKILLS',
    'GIT_LFS_UNSUPPORTED',
    ...REMOTE_ERRORS,
    {
      code: 'FORBIDDEN',
      when: '`public: true` by a non-admin, below Developer in the group, or a skill of that name the caller may not change',
    },
    { code: 'NOT_FOUND', when: 'the group does not exist or the caller has no role there' },
    { code: 'SKILL_EXISTS', when: 'a skill of that name was created in the scope meanwhile' },
    ...STORE_UNAVAILABLE,
  )
  async import(
    @CurrentUser() caller: UserPrincipal,
    @Body() body: ImportSkillsBody,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ImportResultDto> {
    const { created, result } = await this.imports.import(caller, body, clientGone(res));
    res.status(created ? 201 : 200);
    return result;
  }

  @Get(':id/source')
  @ApiOperation({
    operationId: 'getSkillSource',
    summary: "Where the skill is published from in git, and the last check's result",
  })
  @ApiOkResponse({ type: SkillSourceDto })
  @ApiErrors({ code: 'NOT_FOUND', when: 'no such skill, one the caller may not read, or one without a git source' })
  get(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<SkillSourceDto> {
    return this.sources.get(caller, id);
  }

  @Post(':id/source/check')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'checkSkillSource',
    summary: "Resolve the ref again: behind when the skill's folder differs from the published one",
    description:
      'Only the folder counts: other paths of the repository moving leave `behind` false, and so does a change that was reverted. Audited `skill_source.check`.',
  })
  @ApiOkResponse({ type: SkillSourceDto })
  @ApiErrors(
    { code: 'NOT_FOUND', when: 'no such skill, one the caller may not read, or one without a git source' },
    ...REMOTE_ERRORS,
    'DATABASE_UNAVAILABLE',
  )
  check(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SkillSourceDto> {
    return this.sources.check(caller, id, clientGone(res));
  }

  @Post(':id/source/update')
  @ApiOperation({
    operationId: 'updateSkillFromSource',
    summary: "Publish a version from the ref's current commit when the skill's folder changed",
    description:
      '201 with the new version; 200 with the latest version when the folder is unchanged. Audited `skill_source.update`.',
  })
  @ApiCreatedResponse({ type: VersionDto, description: 'The new version' })
  @ApiOkResponse({ type: VersionDto, description: 'Unchanged: the latest version, nothing new' })
  @ApiErrors(
    { code: 'SKILL_INVALID', when: 'the folder at the new commit breaks the package rules (`details.errors`)' },
    'GIT_LFS_UNSUPPORTED',
    'NAME_MISMATCH',
    ...REMOTE_ERRORS,
    { code: 'FORBIDDEN', when: 'the caller may read the skill but not change it' },
    { code: 'NOT_FOUND', when: 'no such skill, one the caller may not read, or one without a git source' },
    ...STORE_UNAVAILABLE,
  )
  async update(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Res({ passthrough: true }) res: Response,
  ): Promise<VersionDto> {
    const { created, version } = await this.sources.update(caller, id, clientGone(res));
    res.status(created ? 201 : 200);
    return version;
  }
}
