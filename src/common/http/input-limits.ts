// Count limits a DTO declares on its own properties, checked by the validation pipe on the raw body
// before class-transformer or any per-item rule runs (docs/limits.md#hostile-input: counts first, linear time), and
// a linear replacement for class-validator's quadratic ArrayUnique.
import { ArrayMaxSize, registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

interface CountLimit {
  property: string;
  kind: 'items' | 'keys';
  max: number;
}

const LIMITS = new Map<Function, CountLimit[]>();

function record(target: object, property: string | symbol, kind: CountLimit['kind'], max: number): void {
  const ctor = target.constructor;
  const own = LIMITS.get(ctor) ?? [];
  own.push({ property: String(property), kind, max });
  LIMITS.set(ctor, own);
}

export function itemsMessage(property: string, max: number): string {
  return `${property} must contain no more than ${max} elements`;
}

export function keysMessage(property: string, max: number): string {
  return `${property} must have at most ${max} keys`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An array property of at most `max` items, checked before anything else looks at its items. */
export function MaxItems(max: number): PropertyDecorator {
  return (target: object, property: string | symbol) => {
    record(target, property, 'items', max);
    ArrayMaxSize(max, { message: ({ property: p }: ValidationArguments) => itemsMessage(p, max) })(target, property);
  };
}

/**
 * An object (or map) property of at most `max` keys, checked first. The key count of a Map built
 * by a transform is the property's own validator's business; this checks the raw body.
 */
export function MaxKeys(max: number): PropertyDecorator {
  return (target: object, property: string | symbol) => record(target, property, 'keys', max);
}

/** Every count limit `metatype` (and the classes it extends) declares that `body` breaks. */
export function countLimitProblems(metatype: Function | undefined, body: unknown): string[] {
  if (!metatype || !isPlainObject(body)) return [];
  const problems: string[] = [];
  for (let ctor: Function | null = metatype; ctor && ctor !== Object; ctor = Object.getPrototypeOf(ctor) as Function) {
    for (const { property, kind, max } of LIMITS.get(ctor) ?? []) {
      if (!Object.hasOwn(body, property)) continue;
      const value = body[property];
      if (kind === 'items' && Array.isArray(value) && value.length > max) problems.push(itemsMessage(property, max));
      if (kind === 'keys' && isPlainObject(value) && Object.keys(value).length > max) {
        problems.push(keysMessage(property, max));
      }
    }
  }
  return problems;
}

/**
 * Each item (or each item's `keyOf`) at most once, in linear time. Items whose key is null or
 * undefined are left to their own rules.
 */
export function Distinct<T>(
  keyOf: (item: T) => unknown = (item) => item,
  options?: ValidationOptions,
): PropertyDecorator {
  return (target: object, property: string | symbol) =>
    registerDecorator({
      name: 'distinct',
      target: target.constructor,
      propertyName: String(property),
      options,
      validator: {
        validate: (value: unknown) => {
          if (!Array.isArray(value)) return true;
          const seen = new Set<unknown>();
          for (const item of value as T[]) {
            const key = item === null || item === undefined ? undefined : keyOf(item);
            if (key === null || key === undefined) continue;
            if (seen.has(key)) return false;
            seen.add(key);
          }
          return true;
        },
        defaultMessage: (args?: ValidationArguments) => `${args?.property ?? 'the list'} must not repeat an item`,
      },
    });
}
