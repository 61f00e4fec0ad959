// Tests run on the embedded database (one server for the run, files one after another) unless
// TEST_DATABASE_URL names a server (then every file gets its own clone of a migrated template).
const swcTs = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
const swcJs = { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } };

const common = {
  testTimeout: 60_000,
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcTs],
    '^.+\\.m?js$': ['@swc/jest', swcJs],
  },
  // NestJS 12 and a few of its dependencies ship only ES modules: transform them too.
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|file-type|strtok3|token-types|uint8array-extras|@tokenizer|@borewit)/)',
  ],
};

// Tests that bound the event loop's latency measure wall time: they run alone, after the rest
// (`npm test` runs the `loop` project in a second, serial pass), so no other test file competes
// for the two cores while they measure.
const LOOP_TESTS = ['<rootDir>/test/e2e/event-loop.spec.ts', '<rootDir>/test/e2e/package-inspection.spec.ts'];

const database = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

module.exports = {
  maxWorkers: process.env.TEST_DATABASE_URL ? 2 : 1,
  reporters: [
    'default',
    [
      '<rootDir>/test/support/documented-count.reporter.cjs',
      { loopTests: LOOP_TESTS.map((path) => path.replace('<rootDir>/', '')) },
    ],
  ],
  testTimeout: 60_000,
  projects: [
    // Rules as tables of cases: no database, no Nest.
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    // The real app (or real processes) on a real database.
    {
      ...common,
      ...database,
      displayName: 'db',
      testMatch: ['<rootDir>/test/e2e/**/*.spec.ts', '<rootDir>/test/process/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...LOOP_TESTS.map((path) => path.replace('<rootDir>', ''))],
    },
    { ...common, ...database, displayName: 'loop', testMatch: LOOP_TESTS },
  ],
};
