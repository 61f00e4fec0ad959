// The tool policy's public API (docs/tool-policy.md): plain functions over plain values, no Nest,
// TypeORM or HTTP, so the package inspection, the resolution services and the MCP surface share it.
export * from './policy.types';
export { type ToolPolicyReading, parseToolPolicy } from './parse-policy';
export {
  type AllowedToolsReading,
  type EntryFault,
  type EntryReading,
  parseAllowedTools,
  parseToolEntry,
  readToolEntry,
  splitAllowedTools,
} from './allowed-tools';
export { type RequiresReading, parseRequires } from './requires';
export { MAX_PROBLEMS_PER_FIELD } from './policy-problems';
export { type CompiledGlob, type GlobText, codePointsOf, compileGlob, globCost, globMatch, matchGlob } from './glob';
export { isCompoundCommand, readSimpleCommand } from './simple-command';
export {
  type CompiledPolicy,
  type CompiledSkill,
  type HeadRule,
  DEFAULT_MATCH_BUDGET,
  MATCH_SLICE,
  MAX_MATCH_BUDGET,
  MIN_MATCH_BUDGET,
  bodyAllows,
  checkCall,
  checkCallSteps,
  compilePolicy,
  compileSkills,
  finish,
  foldToolName,
  globAt,
  visibleTools,
  visibleToolsOf,
} from './intersection';
export { CompiledPolicyCache } from './policy-cache';
export {
  MAX_COMMAND_BYTES,
  type PolicyRef,
  type ToolCheckAnswer,
  type ToolCheckOptions,
  type ToolCheckOutcome,
  type ToolCheckRejection,
  type ToolCheckRequest,
  type ToolCheckSkill,
  toolCheck,
  toolCheckSteps,
} from './tool-check';
export {
  REMOTE_SKILL_TIMEOUT_MAX,
  REMOTE_SKILL_TIMEOUT_MIN,
  type RemoteSkillEntry,
  type RemoteSkillSource,
  type RemoteSkillsManifest,
  buildRemoteSkillsManifest,
  displayNameOf,
  inputSchemaOf,
  timeoutOf,
} from './veadk-manifest';
export { remoteSkillsLoaderViolations } from './veadk-loader-rules';
