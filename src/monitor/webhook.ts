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
