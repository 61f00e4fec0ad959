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
export {
  bytesGone,
  changeStatus,
  isFollowable,
  latestFollowable,
  MAX_STATUS_MESSAGE_CHARS,
  pinnedRefusal,
  RESERVED_TAG,
  type StatusChange,
  TAG_PATTERN,
  tagNameProblem,
  tagTargetRefusal,
  VERSION_STATUSES,
  type VersionStatus,
} from './lifecycle';
export {
  applicableBindings,
  BINDING_EXCEPTION_TYPES,
  type BindingException,
  type BindingExceptionType,
  type BindingFacts,
  bindingGroups,
  type BindingTarget,
  type BindingTask,
  type BoundName,
  decideBindings,
  exceptionProblems,
  groupBindable,
  isExcepted,
  MAX_BINDING_EXCEPTIONS,
  MAX_BINDINGS_PER_TARGET,
  MAX_EXCEPTION_VALUE_CHARS,
  readersMayRead,
  resolveBinding,
  taskMode,
} from './bindings';
