// An esbuild plugin shared by the build and the benchmark's baseline.
import { readFileSync } from 'node:fs';

// The `yaml` parser reads process.env.LOG_TOKENS for every token (and the composer LOG_STREAM for
// every document): a call into the environment each time, a tenth of an audit's CPU in the profile.
// Those debug switches are off in what ships.
export const yamlDebugSwitchesOff = {
  name: 'yaml-debug-switches-off',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]yaml[\\/]dist[\\/](parse[\\/]parser|compose[\\/]composer)\.js$/ }, async (args) => {
      const source = readFileSync(args.path, 'utf8');
      const patched = source.replace(/\bnode_process\.env\.LOG_(TOKENS|STREAM)\b/g, 'undefined');
      if (patched === source) throw new Error(`yaml-debug-switches-off: no debug switch found in ${args.path} (did yaml change?)`);
      return { contents: patched, loader: 'js' };
    });
  },
};
