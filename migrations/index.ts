// Every migration, in order. A file made by `npm run migration:generate` is added here after
// review (a test fails when a file in this folder is missing from the list).
import { Identity1764460800000 } from './1764460800000-identity';
import { Skills1764547200000 } from './1764547200000-skills';
import { Resources1764633600000 } from './1764633600000-resources';
import { ChangeNotifications1764720000000 } from './1764720000000-change-notifications';
import { ResolverIndexes1764806400000 } from './1764806400000-resolver-indexes';
import { CanonicalPackages1764900000000 } from './1764900000000-canonical-packages';
import { AuditEvents1796057971912 } from './1796057971912-audit-events';
import { SkillSearch1796060773662 } from './1796060773662-skill-search';
import { ToolPolicy1796100000000 } from './1796100000000-tool-policy';
import { NarrowChangeNotifications1796200000000 } from './1796200000000-narrow-change-notifications';
import { ReachedSkillsFunction1796300000000 } from './1796300000000-reached-skills-function';
import { SkillBindings1796400000000 } from './1796400000000-skill-bindings';
import { VersionLifecycle1796500000000 } from './1796500000000-version-lifecycle';
import { NarrowTokenNotifications1796600000000 } from './1796600000000-narrow-token-notifications';
import { PackageStorage1796700000000 } from './1796700000000-package-storage';
import { TeamFactsFunction1796800000000 } from './1796800000000-team-facts-function';
import { GitSources1796900000000 } from './1796900000000-git-sources';

export const MIGRATIONS = [
  Identity1764460800000,
  Skills1764547200000,
  Resources1764633600000,
  ChangeNotifications1764720000000,
  ResolverIndexes1764806400000,
  CanonicalPackages1764900000000,
  AuditEvents1796057971912,
  SkillSearch1796060773662,
  ToolPolicy1796100000000,
  NarrowChangeNotifications1796200000000,
  ReachedSkillsFunction1796300000000,
  SkillBindings1796400000000,
  VersionLifecycle1796500000000,
  NarrowTokenNotifications1796600000000,
  PackageStorage1796700000000,
  TeamFactsFunction1796800000000,
  GitSources1796900000000,
];
