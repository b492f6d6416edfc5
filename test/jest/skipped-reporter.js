// Lists every skipped test after jest's summary, with its file and full name (which carries the reason,
// e.g. "(skipped: shellcheck not installed)"), so a skip is never only a count in the summary.
const path = require('path');

class SkippedReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const skipped = results.testResults.flatMap((file) => file.testResults
      .filter((t) => t.status === 'pending' || t.status === 'skipped' || t.status === 'todo')
      .map((t) => `  ○ ${path.relative(this.rootDir, file.testFilePath)} › ${t.fullName}`));
    if (skipped.length === 0) return;
    process.stderr.write(`\nSkipped tests (${skipped.length}); scripts/install-tools.sh installs the tools they need:\n${skipped.join('\n')}\n`);
  }
}

module.exports = SkippedReporter;
