// The package limits tests inspect with: the service's defaults (docs/packages.md#limits).
import { loadConfig } from '../../src/config/app-config';
import type { PackageLimits } from '../../src/package/limits';

export const DEFAULT_LIMITS: PackageLimits = loadConfig({}).packageLimits;
