// A small mocha reporter for both mocha builds (Node's and the browser's): one
// line per test on the console (the runners forward the extension host's
// console), then the plain "N passed, N failed, N skipped" line, and the
// results for the runner (control.ts).
import type { RunResult, TestOutcome } from './control';

interface MochaTest {
  fullTitle(): string;
  duration?: number;
}
interface MochaRunner {
  on(event: 'pass' | 'pending', listener: (test: MochaTest) => void): unknown;
  on(event: 'fail', listener: (test: MochaTest, error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
}

export function createReporter(onEnd: (result: RunResult) => void) {
  return class E2EReporter {
    constructor(runner: MochaRunner) {
      const tests: TestOutcome[] = [];
      runner.on('pass', (test) => {
        tests.push({ title: test.fullTitle(), state: 'passed', durationMs: test.duration });
        console.log(`  ✓ ${test.fullTitle()} (${test.duration ?? 0} ms)`);
      });
      runner.on('pending', (test) => {
        tests.push({ title: test.fullTitle(), state: 'skipped' });
        console.log(`  - ${test.fullTitle()} (skipped)`);
      });
      runner.on('fail', (test, error) => {
        const text = error?.stack ?? String(error);
        tests.push({ title: test.fullTitle(), state: 'failed', durationMs: test.duration, error: text });
        console.error(`  ✗ ${test.fullTitle()}\n${text.replace(/^/gm, '      ')}`);
      });
      runner.on('end', () => {
        const count = (state: TestOutcome['state']) => tests.filter((test) => test.state === state).length;
        const result: RunResult = { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), tests };
        console.log(`${result.passed} passed, ${result.failed} failed, ${result.skipped} skipped`);
        onEnd(result);
      });
    }
  };
}
