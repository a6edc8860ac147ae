// `flux-job-guard envsubst [--var NAME=VALUE]... [--env] [--strict]` (cli.md): Flux's post-build
// substitution from stdin to stdout, so the model can be checked against the vectors and used
// in scripts (`kustomize build . | flux-job-guard envsubst --var CLUSTER=prod --strict`).
//
// Like `flux envsubst`: --strict fails on an undefined name without a default, and --env reads
// variables from the environment. Unlike it, stdin is substituted as one text, the way
// kustomize-controller substitutes a whole resource (flux envsubst goes line by line, so a
// default spanning lines fails there), and the output is exactly the result, no newline added.
// --var stands for a `postBuild.substitute` key: its name is validated and newlines are removed
// from its value, as kustomize-controller does; it wins over --env.
import { envsubst, validateVarName } from '../engine/flux/substitution/envsubst/template';

interface EnvsubstCommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const USAGE = `usage: flux-job-guard envsubst [--var NAME=VALUE]... [--env] [--strict]

Substitutes stdin as Flux's post-build substitution would and writes the result to stdout.
  --var NAME=VALUE  define a variable (repeatable; wins over --env)
  --env             also take variables from the environment
  --strict          fail on an undefined variable without a default (Flux's default since 2.9)
Exit status: 0 substituted, 1 Flux would fail (its error on stderr), 2 usage error.
`;

/** `args` are the arguments after `envsubst`. */
export function runEnvsubst(args: string[], stdin: string, env: Record<string, string | undefined>): EnvsubstCommandResult {
  const vars = new Map<string, string>();
  let useEnv = false;
  let strict = false;
  const usage = (problem: string): EnvsubstCommandResult => ({
    stdout: '',
    stderr: `flux-job-guard envsubst: ${problem}\n${USAGE}`,
    exitCode: 2,
  });

  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-h' || arg === '--help') return { stdout: USAGE, stderr: '', exitCode: 0 };
    const eq = arg.indexOf('=');
    const [flag, inline] = arg.startsWith('--') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (flag === '--var') {
      const definition = inline ?? args[++i];
      if (definition === undefined) return usage('--var needs NAME=VALUE');
      const split = definition.indexOf('=');
      if (split < 0) return usage(`--var ${JSON.stringify(definition)} is not NAME=VALUE`);
      const name = definition.slice(0, split);
      // An invalid name fails the whole Kustomization in Flux: report it as Flux would.
      const invalid = validateVarName(name);
      if (invalid) return { stdout: '', stderr: `${invalid}\n`, exitCode: 1 };
      vars.set(name, definition.slice(split + 1).replace(/\n/g, ''));
    } else if (flag === '--env' || flag === '--strict') {
      const value = inline === undefined ? true : parseBool(inline);
      if (value === null) return usage(`${flag} takes no value other than true or false, got ${JSON.stringify(inline)}`);
      if (flag === '--env') useEnv = value;
      else strict = value;
    } else if (arg.startsWith('-')) {
      return usage(`unknown flag ${arg}`);
    } else {
      return usage(`unexpected argument ${JSON.stringify(arg)} (the text to substitute is read from stdin)`);
    }
  }

  const lookup = (name: string): string | undefined => {
    const defined = vars.get(name);
    if (defined !== undefined || !useEnv) return defined;
    const value = Object.prototype.hasOwnProperty.call(env, name) ? env[name] : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  const result = envsubst(stdin, lookup, { strict });
  return result.ok ? { stdout: result.output, stderr: '', exitCode: 0 } : { stdout: '', stderr: `${result.error}\n`, exitCode: 1 };
}

/** The spellings Go's strconv.ParseBool accepts, as cobra's boolean flags do. */
function parseBool(text: string): boolean | null {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false;
  return null;
}
