import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiErrors, STORE_UNAVAILABLE, UPLOAD_ERRORS } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { IdPipe } from '../common/http/id.pipe';
import { PageQuery } from '../common/http/pagination';
import {
  DeleteSkillQuery,
  PACKAGE_FORM_SCHEMA,
  PUBLISH_FORM_SCHEMA,
  PublishedSkillDto,
  PublishSkillForm,
  SkillDto,
  SkillListDto,
  SkillListQuery,
  ValidationReportDto,
  VersionListDto,
} from './dto/skill.dto';
import { SkillSearchQuery, SkillSearchResultDto } from './dto/skill-search.dto';
import { UploadSlotInterceptor } from './package-inspector.service';
import { SkillsDeleteService } from './skills-delete.service';
import { SkillsPublishService, UploadedPackage } from './skills-publish.service';
import { SkillsReadService } from './skills-read.service';
import { SkillsSearchService } from './skills-search.service';

@ApiTags('skills')
@ApiAuth()
@Controller('skills')
export class SkillsController {
  constructor(
    private readonly publish: SkillsPublishService,
    private readonly read: SkillsReadService,
    private readonly deletes: SkillsDeleteService,
    private readonly searches: SkillsSearchService,
  ) {}

  @Post()
  @UseInterceptors(UploadSlotInterceptor, FileInterceptor('file'))
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: PUBLISH_FORM_SCHEMA })
  @ApiOperation({
    operationId: 'createSkill',
    summary: 'Publish a new skill (version 1): personal by default, or in a group, or public (admins)',
    description:
      'The package is inspected off the event loop and stored in its canonical form. `namespace` defaults to `default` (a personal skill); `public` defaults to `false`.',
  })
  @ApiCreatedResponse({ type: PublishedSkillDto })
  @ApiErrors(
    ...UPLOAD_ERRORS,
    ...STORE_UNAVAILABLE,
    'SKILL_INVALID',
    { code: 'FORBIDDEN', when: '`public=true` by a caller who is not an admin, or below Developer in the group' },
    { code: 'NOT_FOUND', when: 'the group does not exist or the caller has no role there' },
    'SKILL_EXISTS',
  )
  create(
    @CurrentUser() caller: UserPrincipal,
    @UploadedFile() file: UploadedPackage | undefined,
    @Body() form: PublishSkillForm,
  ): Promise<PublishedSkillDto> {
    return this.publish.create(caller, file, form);
  }

  @Post('validate')
  @HttpCode(200)
  @UseInterceptors(UploadSlotInterceptor, FileInterceptor('file'))
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: PACKAGE_FORM_SCHEMA })
  @ApiOperation({
    operationId: 'validateSkillPackage',
    summary: 'Check a package without storing anything (200 with every problem, valid or not)',
  })
  @ApiOkResponse({ type: ValidationReportDto })
  @ApiErrors(...UPLOAD_ERRORS)
  validate(
    @UploadedFile() file: UploadedPackage | undefined,
    // Unused, but read so that its strings pass the global pipe's checks (docs/limits.md#hostile-input).
    @Body() _form: Record<string, unknown>,
  ): Promise<ValidationReportDto> {
    return this.publish.validate(file);
  }

  @Post(':id/versions')
  @UseInterceptors(UploadSlotInterceptor, FileInterceptor('file'))
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: PACKAGE_FORM_SCHEMA })
  @ApiOperation({
    operationId: 'createSkillVersion',
    summary: 'Publish version N+1 (200 and nothing new when its files equal the latest version)',
  })
  @ApiCreatedResponse({ type: PublishedSkillDto })
  @ApiOkResponse({ type: PublishedSkillDto, description: 'Identical to the latest version: unchanged' })
  @ApiErrors(
    ...UPLOAD_ERRORS,
    ...STORE_UNAVAILABLE,
    'SKILL_INVALID',
    'NAME_MISMATCH',
    { code: 'FORBIDDEN', when: 'the caller may read the skill but not change it' },
    'NOT_FOUND',
  )
  async addVersion(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @UploadedFile() file: UploadedPackage | undefined,
    @Body() _form: Record<string, unknown>,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PublishedSkillDto> {
    const { created, skill } = await this.publish.addVersion(caller, id, file);
    res.status(created ? 201 : 200);
    return skill;
  }

  @Get()
  @ApiOperation({ operationId: 'listSkills', summary: 'Skills the caller may read, by id' })
  @ApiOkResponse({ type: SkillListDto })
  @ApiErrors('VALIDATION_FAILED')
  list(@CurrentUser() caller: UserPrincipal, @Query() query: SkillListQuery): Promise<SkillListDto> {
    return this.read.list(caller, query);
  }

  // Before ':id', which would take "search" for an id.
  @Get('search')
  @ApiOperation({
    operationId: 'searchSkills',
    summary: 'Skills the caller may read, ranked by how well they match the words of q',
    tags: ['discovery'],
  })
  @ApiOkResponse({ type: SkillSearchResultDto })
  @ApiErrors('VALIDATION_FAILED', { code: 'NOT_FOUND', when: 'a task token (search is for users)' })
  search(@CurrentUser() caller: UserPrincipal, @Query() query: SkillSearchQuery): Promise<SkillSearchResultDto> {
    return this.searches.find(caller, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getSkill', summary: 'A skill with its latest version' })
  @ApiOkResponse({ type: SkillDto })
  @ApiErrors('NOT_FOUND')
  get(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<SkillDto> {
    return this.read.get(caller, id);
  }

  @Get(':id/versions')
  @ApiOperation({
    operationId: 'listSkillVersions',
    summary: 'Versions, newest first; the cursor is the last version number of a page',
  })
  @ApiOkResponse({ type: VersionListDto })
  @ApiErrors('VALIDATION_FAILED', 'NOT_FOUND')
  versions(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Query() page: PageQuery,
  ): Promise<VersionListDto> {
    return this.read.versions(caller, id, page.cursor, page.limit);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteSkill',
    summary: 'Soft delete; 409 SKILL_REFERENCED while referred to, unless force=true',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(
    'VALIDATION_FAILED',
    { code: 'FORBIDDEN', when: 'the caller may read the skill but not change it' },
    'NOT_FOUND',
    'SKILL_REFERENCED',
  )
  remove(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Query() query: DeleteSkillQuery,
  ): Promise<void> {
    return this.deletes.remove(caller, id, query.force === 'true');
  }
}
