// The resolver's public API: plain functions over plain facts, no Nest, TypeORM or HTTP.
export * from './resolution.types';
export { canRead, isReporterIn, plainIdentity } from './access';
export { SkillCatalog, type SkillScope, scopeOf } from './skill-catalog';
export { checkStoredRef, lookupByName, pinnedVersion, refTo, resolveExplicit, selectionScope } from './lookup';
export {
  ADDITIONAL_SKILLS_LABEL,
  REQUESTED_SKILL_REFS_LABEL,
  type TaskSelections,
  parseTaskSelections,
  selectedNames,
  storedSelection,
  storedSelections,
} from './selections';
export { decideGhosts, type GhostDecisionFacts, type GhostDecisions, resolveTask } from './resolve-task';
export { resolutionJson } from './encode';
export {
  type GhostSaveFacts,
  type GhostSaveResult,
  type GhostSkillsInput,
  type InvalidName,
  type InvalidReason,
  type SkillRefInput,
  storedRefOf,
  validateGhostSkills,
} from './ghost-save';
export {
  type PersistedSelections,
  invalidSelections,
  mergeMessageSelections,
  selectionOf,
  selectionRefersTo,
} from './selection-save';
