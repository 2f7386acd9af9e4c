/**
 * A running container's probes, in the kubelet's order: a startupProbe first, holding readiness and liveness back
 * until it passes; then readiness (the container's `ready`) and liveness (a failure kills the container).
 */
import { Prober } from './probes.ts';
import type { ProbeKind, ProbeTarget } from './probes.ts';

export interface ProbeOutcomes {
  /** The startup probe passed (or there is none). */
  started(): void;
  ready(passing: boolean, message?: string): void;
  /** A liveness or startup probe failed: the container is to be killed and restarted. */
  failed(kind: 'liveness' | 'startup', message: string | undefined): void;
}

/** Starts the container's probes; the returned probers are stopped when it exits. */
export function startProbes(startedAt: number, target: ProbeTarget, outcomes: ProbeOutcomes): Prober[] {
  const spec = target.container;
  const probers: Prober[] = [];
  const begin = (kind: ProbeKind, onResult: (passing: boolean, message?: string) => void) => {
    const probe = kind === 'startup' ? spec.startupProbe : kind === 'liveness' ? spec.livenessProbe : spec.readinessProbe;
    if (!probe) return;
    const prober = new Prober(kind, probe, target, startedAt, onResult);
    probers.push(prober);
    prober.start();
  };
  const afterStartup = () => {
    begin('readiness', (passing, message) => outcomes.ready(passing, message));
    begin('liveness', (passing, message) => {
      if (!passing) outcomes.failed('liveness', message);
    });
  };
  if (!spec.startupProbe) {
    afterStartup();
    return probers;
  }
  begin('startup', (passing, message) => {
    if (!passing) return outcomes.failed('startup', message);
    outcomes.started();
    afterStartup();
  });
  return probers;
}
