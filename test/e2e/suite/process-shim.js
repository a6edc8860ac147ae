// mocha's browser build and npm 'assert' read a few fields of `process`; a web worker has none.
export const process = { env: {}, argv: [], platform: 'browser', version: '', versions: {}, browser: true,
  nextTick: (f, ...a) => Promise.resolve().then(() => f(...a)), cwd: () => '/', stdout: undefined, stderr: undefined };
