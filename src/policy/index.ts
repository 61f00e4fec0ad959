// The tool policy's public API (CONTRACT §7, §9.2): plain functions over plain values, no Nest,
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
export { type CompiledGlob, MatchBudget, codePointsOf, compileGlob, globMatch, matchGlob } from './glob';
export { isCompoundCommand, readSimpleCommand } from './simple-command';
export { MAX_MATCH_WORK_PER_SKILL, bodyAllows, checkCall, foldToolName, visibleTools } from './intersection';
export {
  MAX_COMMAND_BYTES,
  type PolicyRef,
  type ToolCheckAnswer,
  type ToolCheckOutcome,
  type ToolCheckRejection,
  type ToolCheckRequest,
  type ToolCheckSkill,
  toolCheck,
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
