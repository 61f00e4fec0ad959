// Search (docs/search.md): the caller's readable scopes, the query's terms, and the ranked rows.
import { Injectable } from '@nestjs/common';
import { UserPrincipal } from '../auth/principal';
import { NamespaceAccess } from '../groups/namespace-access.service';
import {
  SEARCH_DEFAULT_LIMIT,
  SEARCH_DEFAULT_MIN_SCORE,
  SkillSearchQuery,
  SkillSearchResultDto,
} from './dto/skill-search.dto';
import { searchTerms } from './search/search-terms';
import { SkillSearchRepository } from './search/skill-search.repository';

@Injectable()
export class SkillsSearchService {
  constructor(
    private readonly search: SkillSearchRepository,
    private readonly access: NamespaceAccess,
  ) {}

  async find(caller: UserPrincipal, query: SkillSearchQuery): Promise<SkillSearchResultDto> {
    const terms = searchTerms(query.q);
    const items =
      terms.length === 0
        ? []
        : await this.search.search({
            terms,
            readerUserId: caller.userId,
            readableGroups: await this.access.readableGroups(caller),
            namespace: query.namespace,
            isPublic: query.is_public === undefined ? undefined : query.is_public === 'true',
            minScore: query.min_score ?? SEARCH_DEFAULT_MIN_SCORE,
            limit: query.limit ?? SEARCH_DEFAULT_LIMIT,
          });
    return {
      items: items.map((hit) => ({
        skill_id: hit.skill_id,
        name: hit.name,
        description: hit.description,
        namespace: hit.namespace,
        is_public: hit.is_public,
        version: hit.version,
        content_hash: hit.content_hash,
        allowed_tools: hit.allowed_tools,
        score: hit.score,
      })),
      query: query.q,
    };
  }
}
