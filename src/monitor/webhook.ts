import type { ProductionAlarm } from '../store/types.js';
import type { MonitorOptions } from './monitor.js';

/**
 * Alarms to a webhook: one JSON POST per alarm, tried again on a lost connection, a timeout, 429 or 5xx (after
 * 1 s, 2 s, 4 s, …), never on another 4xx (the hook refused it and will again). Resolves with what happened;
 * never throws: an alarm that could not be delivered is still stored, and still sets the exit code.
 */
export interface WebhookResult {
  delivered: boolean;
  attempts: number;
  /** The last failure, one line. */
  error?: string;
}

export interface WebhookOptions {
  retries?: number;
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
  /** Waits between attempts (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
}

export async function postWebhook(url: string, body: unknown, options: WebhookOptions = {}): Promise<WebhookResult> {
  const retries = options.retries ?? 3;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let error = '';
  for (let attempt = 1; attempt <= retries + 1; attempt++) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'User-Agent': 'assay-monitor' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      await res.body?.cancel().catch(() => {});
      if (res.ok) return { delivered: true, attempts: attempt };
      error = `HTTP ${res.status}`;
      if (res.status !== 429 && res.status < 500) return { delivered: false, attempts: attempt, error };
    } catch (err) {
      error = ((err as Error).cause as Error | undefined)?.message ?? (err as Error).message;
    }
    if (attempt <= retries) await sleep(1000 * 2 ** (attempt - 1));
  }
  return { delivered: false, attempts: retries + 1, error: error.split('\n')[0] };
}

export interface WebhookDeliveryOptions extends WebhookOptions {
  /** Told of each alarm the hook did not take (it stays stored undelivered and is sent again on the next pass). */
  onFailure?: (alarm: ProductionAlarm, result: WebhookResult) => void;
}

/**
 * runMonitor's `onAlarm` for a monitor's webhook: one POST per alarm — its stored fields, the watch's figures
 * (`rate`, `high`, `threshold`, `counts`, `scope`) and `late: true` when an earlier pass could not deliver it —
 * answering whether the hook took it.
 */
export function webhookAlarms(hook: { url: string; retries?: number }, options: WebhookDeliveryOptions = {}): NonNullable<MonitorOptions['onAlarm']> {
  return async (alarm, { alarm: detail, late }) => {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    const { delivered, ...fields } = alarm;
    const body = {
      ...fields,
      ...(detail ? { rate: detail.rate, high: detail.high, threshold: detail.threshold, counts: detail.counts, scope: detail.scope } : {}),
      ...(late ? { late: true } : {}),
    };
    const sent = await postWebhook(hook.url, body, { ...options, ...(hook.retries !== undefined ? { retries: hook.retries } : {}) });
    if (!sent.delivered) options.onFailure?.(alarm, sent);
    return sent.delivered;
  };
}
