/**
 * What a call to the outside (a model, a system under test) leaves in the record: the tokens it used and,
 * when it failed, the kind of infrastructure failure. Stored with samples, so it belongs to the domain;
 * providers/provider-error.ts decides the kind and whether it is worth retrying.
 */

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export type CallErrorKind =
  | 'rate_limit' // HTTP 429 (and Anthropic's 529 overloaded)
  | 'server' // HTTP 5xx
  | 'timeout'
  | 'connection' // reset, refused, DNS
  | 'aborted' // the run was cancelled
  | 'client' // HTTP 4xx other than 408/429: a bad request will not get better by retrying
  | 'invalid_response'; // the answer could not be read
