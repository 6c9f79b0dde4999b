/**
 * Library errors name what was wrong by the option's key (`where.key`: `runId`, `store`,
 * `overrides.samples`), as config errors name a field. The CLI says the flag a person typed instead: this
 * is the one place that knows which flag stands for which key.
 */
const FLAG_OF: Readonly<Record<string, string>> = {
  runId: '--resume',
  store: '--store',
  'overrides.samples': '--samples',
  'overrides.concurrency': '--concurrency',
  'overrides.stopping': '--stopping',
  'overrides.verdict': '--verdict',
  'overrides.interval': '--interval',
  'overrides.perInput': '--per-input',
  'overrides.estimand': '--estimand',
};

/** The error's message as the CLI prints it: each line that starts with a key the CLI has a flag for starts with that flag. */
export function cliMessage(err: { message: string; where?: { key?: string } }): string {
  if (!err.where?.key) return err.message;
  return err.message
    .split('\n')
    .map((line) => {
      const key = /^([\w.]+)(?=[: ])/.exec(line)?.[1];
      const flag = key !== undefined ? FLAG_OF[key] : undefined;
      return flag ? flag + line.slice(key!.length) : line;
    })
    .join('\n');
}
