// Compiled `allowed-tools` lists by version: a version is immutable, so its policy is compiled once
// and kept, least recently used first out, up to a number of versions.
import { CompiledPolicy, compilePolicy } from './intersection';

export class CompiledPolicyCache {
  private readonly entries = new Map<string, CompiledPolicy>();

  /** `maxEntries` 0 keeps nothing: every check compiles what it needs. */
  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * The compiled policy of the version `key` names (skill, version and content hash: its list can
   * never change), compiling `allowedTools` on a miss.
   */
  get(key: string, allowedTools: readonly string[]): CompiledPolicy {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const compiled = compilePolicy(allowedTools);
    if (this.maxEntries === 0) return compiled;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, compiled);
    return compiled;
  }
}
