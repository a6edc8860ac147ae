#!/usr/bin/env node
// Entry point of the `flux-job-guard` bin (bundled to dist/cli.js).
import { readFileSync } from 'node:fs';
import { runCli } from './cli/main';

runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: () => readFileSync(0, 'utf8'),
  env: process.env,
  cwd: process.cwd(),
}).then(
  (code) => {
    if (code === -1) {
      // `lsp --stdio`: the server module starts listening when loaded.
      void import('./server-node.js');
      return;
    }
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`flux-job-guard: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 2;
  },
);
