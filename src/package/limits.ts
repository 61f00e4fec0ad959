// What one package may be: its size, its entries and what they expand to. The service reads the
// values from the environment (config/), the sandbox client from its own; the reader checks them.
export interface PackageLimits {
  /** Upload cap in bytes (413 PACKAGE_TOO_LARGE above it). */
  maxPackageBytes: number;
  maxEntries: number;
  maxFileBytes: number;
  maxExpandedBytes: number;
  maxCompressionRatio: number;
  maxPathBytes: number;
}
