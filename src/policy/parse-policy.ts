// docs/packages.md#tool-policy-fields for one version: the tool policy read from its parsed frontmatter, with every problem.
import { parseAllowedTools } from './allowed-tools';
import { PolicyProblem, ToolPolicy } from './policy.types';
import { parseRequires } from './requires';

export interface ToolPolicyReading extends ToolPolicy {
  /** `ALLOWED_TOOLS_INVALID`, `REQUIRES_INVALID`: the version is rejected when there is any. */
  errors: PolicyProblem[];
  /** `ALLOWED_TOOLS_LIST`. */
  warnings: PolicyProblem[];
}

/**
 * `frontmatter` is the parsed YAML mapping of SKILL.md. With errors, `allowed_tools` and `requires`
 * hold the valid part only (a version stored before these rules existed still gets a policy that
 * never allows more than it wrote).
 */
export function parseToolPolicy(frontmatter: Readonly<Record<string, unknown>>): ToolPolicyReading {
  const tools = parseAllowedTools(Object.hasOwn(frontmatter, 'allowed-tools'), frontmatter['allowed-tools']);
  const requires = parseRequires(Object.hasOwn(frontmatter, 'metadata') ? frontmatter.metadata : undefined);
  return {
    allowed_tools: tools.allowed_tools,
    requires: requires.requires,
    errors: [...tools.errors, ...requires.errors],
    warnings: tools.warnings,
  };
}
