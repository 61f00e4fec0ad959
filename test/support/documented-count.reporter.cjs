// Keeps docs/testing.md's test count true: after a whole run of the `unit` and `db` projects (every
// spec file they hold, no filter), the run fails when the number of tests it counted is off the
// documented "About N tests" by more than a tenth. A run of some files checks nothing.
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'testing.md');
const TOLERANCE = 0.1;

function specFiles(folder) {
  return readdirSync(join(ROOT, folder), { recursive: true })
    .filter((name) => String(name).endsWith('.spec.ts'))
    .map((name) => `${folder}/${name}`);
}

class DocumentedCountReporter {
  constructor(globalConfig, options = {}) {
    this.loopTests = options.loopTests ?? [];
    this.error = undefined;
  }

  onRunComplete(_contexts, results) {
    const expected = [...specFiles('test/unit'), ...specFiles('test/e2e'), ...specFiles('test/process')].filter(
      (file) => !this.loopTests.includes(file),
    );
    // A partial run (some files, or the loop pass) says nothing about the whole.
    if (results.numTotalTestSuites !== expected.length) return;
    const match = /About ([\d,]+) tests/.exec(readFileSync(DOC, 'utf8'));
    if (!match) {
      this.error = new Error(`${DOC} no longer says "About N tests": keep the count there`);
      return;
    }
    const documented = Number(match[1].replace(/,/g, ''));
    const counted = results.numTotalTests;
    if (Math.abs(counted - documented) > documented * TOLERANCE) {
      this.error = new Error(
        `docs/testing.md says about ${documented} tests; this whole run counted ${counted}: update the number there`,
      );
      process.stderr.write(`\n${this.error.message}\n`);
    }
  }

  getLastError() {
    return this.error;
  }
}

module.exports = DocumentedCountReporter;
