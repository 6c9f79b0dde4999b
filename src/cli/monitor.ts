import type { Command } from 'commander';
import { formatRate } from '../core/show.js';
import { ExitCode } from '../errors.js';
import { loadMonitor } from '../monitor/config.js';
import { runMonitor, type MonitorResult } from '../monitor/monitor.js';
import { webhookAlarms } from '../monitor/webhook.js';
import { openStore, storeLocation } from '../store/open.js';
import { durationFlag } from './flags.js';
import { STORE_FLAG, STORE_HELP } from './store-flag.js';

interface MonitorFlags {
  once?: boolean;
  json?: boolean;
  interval: string;
  store?: string;
}

function print(r: MonitorResult, json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(r) + '\n');
    return;
  }
  process.stdout.write(`${r.experiment}: ${r.samples.toLocaleString('en')} production samples\n`);
  for (const s of r.rules) {
    const c = s.cumulative;
    const base = s.baseline ? `, baseline ${formatRate(s.baseline.pass / (s.baseline.pass + s.baseline.fail))} (≥ ${formatRate(s.baseline.low)})` : '';
    const budget = s.overBudget ? `, ${s.overBudget} over the judge budget` : '';
    process.stdout.write(
      `  ${s.rule}: ${formatRate(c.rate)} of ${(c.counts.pass + c.counts.fail).toLocaleString('en')} checks (at most ${formatRate(c.high)}; ${c.counts.error} errors; ${s.newChecks} new${budget}), minSuccess ${formatRate(s.minSuccess)}${base}\n`,
    );
    for (const a of s.newAlarms) process.stdout.write(`  ALARM ${a.kind}: ${a.message}\n`);
  }
  for (const a of r.redelivered) process.stdout.write(`  delivered an earlier alarm to the webhook: ${a.message}\n`);
  if (!r.newAlarms.length) process.stdout.write('no new alarm\n');
}

/** `assay monitor FILE`: the monitor's rules on its production experiment; alarms by exit code and webhook. */
export function register(program: Command): void {
  program
    .command('monitor')
    .description('check production traffic with a monitor file (rules, sampling, judge budget) and raise alarms (docs/production.md)')
    .argument('<file>', 'the monitor file (YAML or JSON)')
    .option('--once', 'one pass, then exit: 0 no new alarm, 1 an alarm was raised, 2 bad monitor file, 3 store or other failure (for cron)')
    .option('--interval <duration>', 'without --once: time between passes', '60s')
    .option('--json', 'print each pass as JSON')
    .option(STORE_FLAG, STORE_HELP)
    .action(async (file: string, flags: MonitorFlags) => {
      const interval = durationFlag('--interval', flags.interval)!;
      const monitor = await loadMonitor(file);
      const store = await openStore(storeLocation(flags.store), { existing: true });
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      let alarmed = false;
      try {
        do {
          const result = await runMonitor(store, monitor, {
            signal: controller.signal,
            ...(monitor.webhook
              ? {
                  onAlarm: webhookAlarms(monitor.webhook, {
                    onFailure: (_alarm, sent) =>
                      process.stderr.write(
                        `assay: the alarm could not be posted to the webhook after ${sent.attempts} attempts (${sent.error}); it is stored and sent again on the next pass\n`,
                      ),
                  }),
                }
              : {}),
          });
          print(result, flags.json === true);
          if (result.newAlarms.length) alarmed = true;
          if (flags.once || controller.signal.aborted) break;
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, interval);
            controller.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
          });
        } while (!controller.signal.aborted);
        process.exitCode = alarmed ? ExitCode.VERDICT_FAILED : ExitCode.OK;
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        monitor.dispose();
        await store.close();
      }
    });
}
