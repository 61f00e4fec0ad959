// Records here are keyed by data (skill names, group names): `constructor` is a valid skill name and
// must never read Object.prototype, so every such read goes through this.
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string | number): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
