// The package limits tests inspect with: the service's defaults (CONTRACT §3).
import { loadConfig, PackageLimits } from '../../src/config/app-config';

export const DEFAULT_LIMITS: PackageLimits = loadConfig({}).packageLimits;
