// Lists, at the end of a run, every suite and test that did not run because something it needs is
// missing, with the reason test/requirements.ts gave, so that a plain `npm test` without PostgreSQL
// or Chromium says what it left out instead of skipping it silently.
import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node';

function skippedOf(module: TestModule): string[] {
  const skipped: string[] = [];
  const visit = (children: Iterable<TestSuite | TestCase>, parentSkipped: boolean) => {
    for (const child of children) {
      if (child.type === 'suite') {
        const isSkipped = child.state() === 'skipped';
        if (isSkipped && !parentSkipped) skipped.push(child.name);
        visit(child.children, parentSkipped || isSkipped);
      } else if (!parentSkipped && child.result().state === 'skipped') {
        skipped.push(child.name);
      }
    }
  };
  visit(module.children, false);
  return skipped;
}

export default class SkippedSuitesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines = testModules.flatMap((module) =>
      skippedOf(module).map((name) => `  ${module.relativeModuleId}: ${name}`),
    );
    if (lines.length === 0) return;
    process.stdout.write(`\nSkipped (${lines.length}), each with what it needs:\n${lines.join('\n')}\n`);
  }
}
