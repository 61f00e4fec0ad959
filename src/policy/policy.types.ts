// The plain values of the tool policy (docs/tool-policy.md): what a version declares and what a check answers.

/** The codes the policy parser can give; the package inspection lists them with its own. */
export type PolicyErrorCode = 'ALLOWED_TOOLS_INVALID' | 'REQUIRES_INVALID';
export type PolicyWarningCode = 'ALLOWED_TOOLS_LIST';

/** Structurally the `Problem` of a package inspection: `{code, message, field?}`. */
export interface PolicyProblem {
  code: PolicyErrorCode | PolicyWarningCode;
  message: string;
  /** The frontmatter key concerned (`allowed-tools`, or the metadata path of `requires`). */
  field?: string;
}

/** What a skill needs in the sandbox that runs it: command names and environment variable names. */
export interface Requires {
  /** Sorted, unique. */
  bins: string[];
  /** Sorted, unique. */
  env: string[];
}

/** The tool policy of one version (docs/packages.md#tool-policy-fields). */
export interface ToolPolicy {
  /** The entries as written, trimmed, duplicates dropped, order kept; `null` when the key is absent. */
  allowed_tools: string[] | null;
  requires: Requires;
}

/** One `allowed-tools` entry split into its tool name and, for `Head(body)`, the body. */
export interface ToolEntry {
  head: string;
  /** The text between the outer parentheses; `null` for a bare `Head`. */
  body: string | null;
}

/** A skill as the intersection sees it: its name (for `denied_by`) and its list, or null. */
export interface ActiveSkill {
  name: string;
  allowed_tools: readonly string[] | null;
}

export type CallCode = 'TOOL_NOT_ALLOWED' | 'COMMAND_NOT_ALLOWED' | 'COMMAND_COMPOUND' | 'POLICY_TOO_COMPLEX';

/** A tool call to check: `command` is the shell command (or other argument) the bodies constrain. */
export interface ToolCall {
  tool: string;
  command?: string;
}

export interface CallVerdict {
  allowed: boolean;
  code: CallCode | null;
  /** The names of the skills that refused, sorted; empty when allowed. */
  denied_by: string[];
}
