#!/usr/bin/env node
// The package's `skill-resolver` command: the built client (`npm run build` writes dist/). Kept
// outside dist/ so its executable bit, which npx and npm link rely on, survives every build.
/* global require, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS entry point, run before anything is compiled */
'use strict';

const { join } = require('node:path');

let cli;
try {
  cli = require(join(__dirname, '..', 'dist', 'src', 'client', 'cli.js'));
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes('cli.js')) {
    process.stderr.write('skill-resolver: error: the client is not built; run `npm run build` first\n');
    process.exit(1);
  }
  throw err;
}
cli.run();
