// The package limits tests inspect with: the service's defaults (CONTRACT §3).
import { loadConfig } from '../../src/config/app-config';
import type { PackageLimits } from '../../src/package/limits';

export const DEFAULT_LIMITS: PackageLimits = loadConfig({}).packageLimits;
