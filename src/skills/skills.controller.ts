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
  @ApiOperation({ summary: 'Publish a new skill (version 1) in a scope' })
  @ApiCreatedResponse({ type: PublishedSkillDto })
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
  @ApiOperation({ summary: 'Check a package without storing anything' })
  @ApiOkResponse({ type: ValidationReportDto })
  validate(
    @UploadedFile() file: UploadedPackage | undefined,
    // Unused, but read so that its strings pass the global pipe's checks (CONTRACT §11).
    @Body() _form: Record<string, unknown>,
  ): Promise<ValidationReportDto> {
    return this.publish.validate(file);
  }

  @Post(':id/versions')
  @UseInterceptors(UploadSlotInterceptor, FileInterceptor('file'))
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: PACKAGE_FORM_SCHEMA })
  @ApiOperation({ summary: 'Publish version N+1 (200 and nothing new when identical to the latest)' })
  @ApiCreatedResponse({ type: PublishedSkillDto })
  @ApiOkResponse({ type: PublishedSkillDto, description: 'Identical to the latest version: unchanged' })
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
  @ApiOkResponse({ type: SkillListDto })
  list(@CurrentUser() caller: UserPrincipal, @Query() query: SkillListQuery): Promise<SkillListDto> {
    return this.read.list(caller, query);
  }

  // Before ':id', which would take "search" for an id.
  @Get('search')
  @ApiOperation({ summary: 'Skills the caller may read, ranked by how well they match the words of q' })
  @ApiOkResponse({ type: SkillSearchResultDto })
  search(@CurrentUser() caller: UserPrincipal, @Query() query: SkillSearchQuery): Promise<SkillSearchResultDto> {
    return this.searches.find(caller, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: SkillDto })
  get(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<SkillDto> {
    return this.read.get(caller, id);
  }

  @Get(':id/versions')
  @ApiOperation({ summary: 'Versions, newest first; the cursor is the last version number of a page' })
  @ApiOkResponse({ type: VersionListDto })
  versions(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Query() page: PageQuery,
  ): Promise<VersionListDto> {
    return this.read.versions(caller, id, page.cursor, page.limit);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Soft delete; 409 SKILL_REFERENCED while referred to, unless force=true' })
  @ApiNoContentResponse()
  remove(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', IdPipe) id: number,
    @Query() query: DeleteSkillQuery,
  ): Promise<void> {
    return this.deletes.remove(caller, id, query.force === 'true');
  }
}
