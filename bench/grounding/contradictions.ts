/**
 * `npm run bench:contradictions`: how well the audit catches a changed detail. From claims the benchmark's
 * evidence supports (WiCE "supported" claims; the sentences of FaithBench summaries with no Unwanted label),
 * perturb.ts makes claims with one detail changed and restatements that keep the meaning; the real engine
 * labels each against the claim's own evidence, with the embedder's default thresholds.
 * - recall: perturbed claims labelled CONTRADICTED or UNSUPPORTED, overall and per kind;
 * - false_contradiction_rate: unperturbed claims labelled CONTRADICTED;
 * - restated: restatements labelled CONTRADICTED (they should never be).
 */
import { join } from 'node:path';
import { extractClaims } from '../../src/ground/claims/claims.js';
import type { KbEmbedder } from '../../src/ground/embedders/spec.js';
import { analyze } from '../../src/ground/engine.js';
import { loadFaithBench, loadWice, type EvalItem } from '../../src/ground/eval/eval.js';
import { buildKnowledgeBase, segmentDocument } from '../../src/ground/kb/kb.js';
import { wilson, type Interval } from '../../src/ground/eval/metrics.js';
import { PERTURB_KINDS, RESTATE_KINDS, itemSeed, namesIn, perturbations, restatements, seededRandom } from './perturb.js';
import type { SupportStatus } from '../../src/ground/types.js';
import { pushAll } from '../../src/core/arrays.js';

export interface SupportedClaim {
  dataset: string;
  id: string;
  claim: string;
  documents: string[];
  split: EvalItem['split'];
}

export interface LabelledVariant {
  dataset: string;
  id: string;
  variant: 'original' | 'perturbed' | 'restated';
  kind?: string;
  claim: string;
  from?: string;
  to?: string;
  label: SupportStatus;
  /** The label of the unperturbed claim. */
  original: SupportStatus;
}

/** Claims the evidence supports, from the datasets found under `dir` (wice/, faithbench/). */
export async function loadSupportedClaims(dir: string, datasets: readonly string[], split: 'calibration' | 'test' | 'all' = 'all'): Promise<SupportedClaim[]> {
  const out: SupportedClaim[] = [];
  const keep = (it: EvalItem) => !it.unsupported && (split === 'all' || it.split === split);
  if (datasets.includes('wice'))
    for (const it of (await loadWice(join(dir, 'wice'))).filter(keep))
      out.push({ dataset: 'wice', id: it.id, claim: it.answer, documents: it.documents, split: it.split });
  if (datasets.includes('faithbench'))
    for (const it of (await loadFaithBench(join(dir, 'faithbench'))).filter(keep))
      extractClaims(it.answer).forEach((claim, k) => out.push({ dataset: 'faithbench', id: `${it.id}#${k}`, claim, documents: it.documents, split: it.split }));
  return out;
}

const worst = (statuses: SupportStatus[]): SupportStatus =>
  statuses.includes('CONTRADICTED')
    ? 'CONTRADICTED'
    : statuses.includes('UNSUPPORTED')
      ? 'UNSUPPORTED'
      : statuses.includes('WEAK')
        ? 'WEAK'
        : statuses.length
          ? 'STRONG'
          : 'UNSUPPORTED';

/** One claim as it is, with one detail changed (each perturbation) and restated, each labelled by `label`. */
async function labelClaim(c: SupportedClaim, label: (answer: string) => Promise<SupportStatus>, names: string[], seed: number): Promise<LabelledVariant[]> {
  const original = await label(c.claim);
  const out: LabelledVariant[] = [{ dataset: c.dataset, id: c.id, variant: 'original', claim: c.claim, label: original, original }];
  const rnd = seededRandom(itemSeed(seed, `${c.dataset}:${c.id}`));
  const variants = [
    ...perturbations(c.claim, rnd, { names, evidence: c.documents.join('\n') }).map((v) => ['perturbed', v] as const),
    ...restatements(c.claim, rnd).map((v) => ['restated', v] as const),
  ];
  for (const [variant, v] of variants)
    out.push({ dataset: c.dataset, id: c.id, variant, kind: v.kind, claim: v.claim, from: v.from, to: v.to, label: await label(v.claim), original });
  return out;
}

/** Label every variant of every claim with the engine (each claim against a KB of its own documents). */
export async function labelVariants(claims: SupportedClaim[], embedder: KbEmbedder, seed: number): Promise<LabelledVariant[]> {
  // Names for the entity perturbation come from all claims of the data (never from the claim's own evidence).
  const names = [...new Set(claims.flatMap((c) => namesIn(c.claim).map((n) => n.text)))].sort();
  let fitted = embedder;
  const docsOf = (c: SupportedClaim) => c.documents.map((text, i) => segmentDocument({ source: `${c.id}/${i}`, sha256: '', text }, embedder, {}));
  if (embedder.fit) {
    const texts: string[] = [];
    const seen = new Set<string>();
    for (const c of claims) {
      const key = c.documents.join('\u0000');
      if (seen.has(key)) continue;
      seen.add(key);
      for (const d of docsOf(c)) for (const w of d.windows) texts.push(d.text.slice(w.start, w.end));
    }
    fitted = embedder.fit(texts);
  }
  const out: LabelledVariant[] = [];
  let kbKey = '';
  let kb: Awaited<ReturnType<typeof buildKnowledgeBase>> | null = null;
  for (const c of claims) {
    const key = c.documents.join('\u0000');
    if (!kb || key !== kbKey) {
      kb = await buildKnowledgeBase(docsOf(c), fitted, { fit: false });
      kbKey = key;
    }
    const label = async (answer: string) => {
      if (extractClaims(answer).length === 0) return 'UNSUPPORTED' as const;
      const r = await analyze(kb!, { query: c.id, answer });
      return worst(r.claims_analysis.map((a) => a.status));
    };
    pushAll(out, await labelClaim(c, label, names, seed));
  }
  return out;
}

/**
 * Natural answers (issue 27): every supported claim audited as an answer against ONE knowledge base of all the
 * claims' evidence, as in real use, where other documents' numbers and names are in reach. Each claim is labelled
 * as it is (a false contradiction when CONTRADICTED), with one detail changed (recall), and restated.
 */
export async function labelNatural(claims: SupportedClaim[], embedder: KbEmbedder, seed: number): Promise<LabelledVariant[]> {
  const names = [...new Set(claims.flatMap((c) => namesIn(c.claim).map((n) => n.text)))].sort();
  const docs = [...new Set(claims.flatMap((c) => c.documents))];
  const segmented = docs.map((text, i) => segmentDocument({ source: `doc${i}`, sha256: '', text }, embedder, {}));
  const kb = await buildKnowledgeBase(segmented, embedder);
  const label = async (id: string, answer: string) => {
    if (extractClaims(answer).length === 0) return 'UNSUPPORTED' as const;
    const r = await analyze(kb, { query: id, answer });
    return worst(r.claims_analysis.map((a) => a.status));
  };
  const out: LabelledVariant[] = [];
  for (const c of claims) pushAll(out, await labelClaim(c, (answer) => label(c.id, answer), names, seed));
  return out;
}

export interface NaturalSummary {
  /** The split the claims come from ('calibration' is the development split: WiCE dev.jsonl, FaithBench's first 60% of sources). */
  split: string;
  /** Supported claims audited against one KB of all their evidence; the share labelled CONTRADICTED (goal ≤ 0.01). */
  natural_false_contradiction_rate: { value: number; ci: Interval; n: number; contradicted: number; supported_rate: number };
  /** The same claims with one detail changed, labelled CONTRADICTED or UNSUPPORTED (goal ≥ 0.95), each kind with n. */
  natural_recall: { value: number; ci: Interval; n: number; kinds: Record<string, { n: number; recall: number; ci: Interval; contradicted: number }> };
  /** Meaning-keeping rewrites: labelled CONTRADICTED (never should be) and STRONG or WEAK. */
  natural_restated: { n: number; contradicted: number; supported_rate: number; supported_when_original_supported: number };
  goals: { false_contradiction_rate: number; recall: number; met: boolean };
}

/** The natural figures from labelNatural's records (pure). */
export function summarizeNatural(records: LabelledVariant[], split: string): NaturalSummary {
  const originals = records.filter((r) => r.variant === 'original');
  const perturbed = records.filter((r) => r.variant === 'perturbed');
  const restated = records.filter((r) => r.variant === 'restated');
  const contradicted = originals.filter((r) => r.label === 'CONTRADICTED').length;
  const hit = perturbed.filter(caught).length;
  const kinds: NaturalSummary['natural_recall']['kinds'] = {};
  for (const kind of PERTURB_KINDS) {
    const of = perturbed.filter((r) => r.kind === kind);
    const k = of.filter(caught).length;
    kinds[kind] = {
      n: of.length,
      recall: rate(k, of.length),
      ci: round(wilson(k, of.length)),
      contradicted: rate(of.filter((r) => r.label === 'CONTRADICTED').length, of.length),
    };
  }
  const restatedSup = restated.filter((r) => supported(r.original));
  const fcr = rate(contradicted, originals.length);
  const recall = rate(hit, perturbed.length);
  return {
    split,
    natural_false_contradiction_rate: {
      value: fcr,
      ci: round(wilson(contradicted, originals.length)),
      n: originals.length,
      contradicted,
      supported_rate: rate(originals.filter((r) => supported(r.label)).length, originals.length),
    },
    natural_recall: { value: recall, ci: round(wilson(hit, perturbed.length)), n: perturbed.length, kinds },
    natural_restated: {
      n: restated.length,
      contradicted: rate(restated.filter((r) => r.label === 'CONTRADICTED').length, restated.length),
      supported_rate: rate(restated.filter((r) => supported(r.label)).length, restated.length),
      supported_when_original_supported: rate(restatedSup.filter((r) => supported(r.label)).length, restatedSup.length),
    },
    goals: {
      false_contradiction_rate: 0.01,
      recall: 0.95,
      met: originals.length > 0 && fcr <= 0.01 && PERTURB_KINDS.every((k) => kinds[k].n > 0 && kinds[k].recall >= 0.95),
    },
  };
}

export interface KindSummary {
  n: number;
  /** Labelled CONTRADICTED or UNSUPPORTED. */
  recall: number;
  recall_ci: Interval;
  /** Labelled CONTRADICTED. */
  contradicted: number;
  /** Among perturbations of claims whose unperturbed form is labelled supported (STRONG or WEAK). */
  n_original_supported: number;
  recall_when_original_supported: number;
}

export interface ContradictionSummary {
  n_claims: number;
  recall: number;
  recall_ci: Interval;
  /** Recall over perturbations of claims the engine labels supported before perturbing (a change it could miss). */
  n_original_supported: number;
  recall_when_original_supported: number;
  false_contradiction_rate: number;
  false_contradiction_ci: Interval;
  kinds: Record<string, KindSummary>;
  /** Unperturbed claims: how many, and the share the engine labels supported. */
  unperturbed: { n: number; supported_rate: number; contradicted: number };
  restated: { n: number; false_contradiction_rate: number; kinds: Record<string, { n: number; contradicted: number; supported_rate: number }> };
  targets: { recall_per_kind: number; false_contradiction_rate: number; met: boolean };
}

const rate = (k: number, n: number) => (n ? Math.round((k / n) * 1e4) / 1e4 : 0);
const round = (i: Interval): Interval => ({ value: Math.round(i.value * 1e4) / 1e4, lo: Math.round(i.lo * 1e4) / 1e4, hi: Math.round(i.hi * 1e4) / 1e4 });
const caught = (v: LabelledVariant) => v.label === 'CONTRADICTED' || v.label === 'UNSUPPORTED';
const supported = (s: SupportStatus) => s === 'STRONG' || s === 'WEAK';

/** The bench's figures from labelled variants (pure). Targets: recall ≥ 0.95 in every kind, false contradictions ≤ 0.03. */
export function summarizeContradictions(records: LabelledVariant[]): ContradictionSummary {
  const originals = records.filter((r) => r.variant === 'original');
  const perturbed = records.filter((r) => r.variant === 'perturbed');
  const restated = records.filter((r) => r.variant === 'restated');
  const kinds: Record<string, KindSummary> = {};
  for (const kind of PERTURB_KINDS) {
    const of = perturbed.filter((r) => r.kind === kind);
    const sup = of.filter((r) => supported(r.original));
    kinds[kind] = {
      n: of.length,
      recall: rate(of.filter(caught).length, of.length),
      recall_ci: round(wilson(of.filter(caught).length, of.length)),
      contradicted: rate(of.filter((r) => r.label === 'CONTRADICTED').length, of.length),
      n_original_supported: sup.length,
      recall_when_original_supported: rate(sup.filter(caught).length, sup.length),
    };
  }
  const restatedKinds: ContradictionSummary['restated']['kinds'] = {};
  for (const kind of RESTATE_KINDS) {
    const of = restated.filter((r) => r.kind === kind);
    restatedKinds[kind] = {
      n: of.length,
      contradicted: rate(of.filter((r) => r.label === 'CONTRADICTED').length, of.length),
      supported_rate: rate(of.filter((r) => supported(r.label)).length, of.length),
    };
  }
  const falseK = originals.filter((r) => r.label === 'CONTRADICTED').length;
  const recall = rate(perturbed.filter(caught).length, perturbed.length);
  const fcr = rate(falseK, originals.length);
  const sup = perturbed.filter((r) => supported(r.original));
  return {
    n_claims: originals.length,
    recall,
    recall_ci: round(wilson(perturbed.filter(caught).length, perturbed.length)),
    n_original_supported: sup.length,
    recall_when_original_supported: rate(sup.filter(caught).length, sup.length),
    false_contradiction_rate: fcr,
    false_contradiction_ci: round(wilson(falseK, originals.length)),
    kinds,
    unperturbed: { n: originals.length, supported_rate: rate(originals.filter((r) => supported(r.label)).length, originals.length), contradicted: falseK },
    restated: {
      n: restated.length,
      false_contradiction_rate: rate(restated.filter((r) => r.label === 'CONTRADICTED').length, restated.length),
      kinds: restatedKinds,
    },
    targets: {
      recall_per_kind: 0.95,
      false_contradiction_rate: 0.03,
      met: PERTURB_KINDS.every((k) => kinds[k].n > 0 && kinds[k].recall >= 0.95) && fcr <= 0.03,
    },
  };
}
