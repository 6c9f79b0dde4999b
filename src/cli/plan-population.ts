import { planPopulation, populationRate, type PopulationDesign, type PopulationRate } from '../core/population.js';
import { formatLevel, formatRate } from '../core/show.js';
import type { ReliabilityTensor } from '../core/tensor.js';
import { tensorViews } from '../core/views.js';

/**
 * `assay plan --run <id> --population-width <w>`: inputs against samples per input for a population claim, from a
 * pilot run's between-input spread (its ICC, so its design effect), with the cost of each choice
 * (core/population.ts planPopulation; docs/verdicts.md#planning-inputs-against-samples).
 */

export interface PopulationPlanRule {
  name: string;
  /** The pilot's population figure (null with fewer than two inputs that decided anything). */
  pilot: PopulationRate | null;
  designs: PopulationDesign[];
  /** samples of the cheapest design, when any reaches the width. */
  cheapest: number | null;
}

export interface PopulationPlan {
  run_id: string;
  width: number;
  level: number;
  input_cost: number;
  sample_cost: number;
  pilot: { N: number; M: number };
  rules: PopulationPlanRule[];
}

export function populationPlan(
  run: { id: string; validators: readonly { name: string }[] },
  tensor: ReliabilityTensor,
  o: { width: number; level: number; inputCost: number; sampleCost: number },
): PopulationPlan {
  const views = tensorViews(tensor);
  const rules = run.validators.map((v, k): PopulationPlanRule => {
    const pilot = populationRate(
      views.rows.map((row) => row[k]),
      o.level,
    );
    if (!pilot) return { name: v.name, pilot, designs: [], cheapest: null };
    const designs = planPopulation({ rate: pilot.rate, icc: pilot.icc ?? 0, width: o.width, level: o.level, inputCost: o.inputCost, sampleCost: o.sampleCost });
    const best = designs.reduce<PopulationDesign | null>((a, d) => (a === null || d.cost < a.cost ? d : a), null);
    return { name: v.name, pilot, designs, cheapest: best?.samples ?? null };
  });
  return {
    run_id: run.id,
    width: o.width,
    level: o.level,
    input_cost: o.inputCost,
    sample_cost: o.sampleCost,
    pilot: { N: tensor.N, M: tensor.M },
    rules,
  };
}

export function formatPopulationPlan(p: PopulationPlan): string {
  const out = [
    `run ${p.run_id} as a pilot (${p.pilot.N} inputs × ${p.pilot.M} samples): inputs and samples per input for an input-population interval at most ${formatRate(p.width)} wide (${formatLevel(p.level)}); cost = inputs × ${p.input_cost} + outputs × ${p.sample_cost}`,
  ];
  for (const r of p.rules) {
    out.push('');
    if (!r.pilot) {
      out.push(`${r.name}: fewer than 2 inputs decided anything in the pilot: no between-input spread to plan from`);
      continue;
    }
    const icc =
      r.pilot.icc === null ? 'ICC unknown (no spread seen; planned as 0)' : `ICC ${r.pilot.icc.toFixed(2)}, design effect ${r.pilot.designEffect!.toFixed(1)}`;
    out.push(`${r.name}: pilot input population ${formatRate(r.pilot.rate)} [${formatRate(r.pilot.low)}, ${formatRate(r.pilot.high)}] · ${icc}`);
    if (!r.designs.length) {
      out.push('  no design within 100,000 inputs reaches that width');
      continue;
    }
    out.push('  samples/input  inputs  outputs     cost  width');
    for (const d of r.designs)
      out.push(
        `  ${String(d.samples).padStart(13)}  ${String(d.inputs).padStart(6)}  ${String(d.outputs).padStart(7)}  ${String(Math.round(d.cost)).padStart(7)}  ${formatRate(d.width)}${d.samples === r.cheapest ? '  ← cheapest' : ''}`,
      );
  }
  return out.join('\n');
}
