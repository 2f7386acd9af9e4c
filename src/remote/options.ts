import type { ObjectFormat } from '../core/object-id.ts';
import { isNullObjectId, isObjectFormat, isObjectId } from '../core/object-id.ts';
import type { OptionAnswer } from '../ports/helper-backend.ts';

/** The transport options git sets on the helper (gitremote-helpers(7) OPTIONS). */
export interface HelperOptions {
  /** 0 = quiet (-q), 1 = default, 2+ = -v. */
  verbosity: number;
  progress: boolean;
  dryRun: boolean;
  atomic: boolean;
  followTags: boolean;
  /** git asked for `:object-format` in `list`. */
  reportObjectFormat: boolean;
  /** The format git wants to use, when it named one. */
  objectFormat: ObjectFormat | null;
  /** `--force-with-lease` expectations of the next push batch: ref → expected id (null: must not exist). */
  leases: Map<string, string | null>;
  pushOptions: string[];
  /** git asked the helper to check the connectivity of a clone (`option check-connectivity`). */
  checkConnectivity: boolean;
}

export function defaultOptions(): HelperOptions {
  return { verbosity: 1, progress: true, dryRun: false, atomic: false, followTags: false, reportObjectFormat: false, objectFormat: null, leases: new Map(), pushOptions: [], checkConnectivity: false };
}

/**
 * Applies one `option <name> <value>`; every option gets an answer. `cas` is honoured (answering "unsupported"
 * would make git refuse --force-with-lease, and silently ignoring it would turn a lease into a plain push).
 */
export function applyOption(options: HelperOptions, name: string, value: string | null): OptionAnswer {
  const bool = (set: (v: boolean) => void): OptionAnswer => {
    if (value !== 'true' && value !== 'false') return { error: `invalid value for ${name}: expected true or false` };
    set(value === 'true');
    return 'ok';
  };
  switch (name) {
    case 'verbosity': {
      const level = Number(value);
      if (!Number.isInteger(level)) return { error: 'invalid value for verbosity: expected a number' };
      options.verbosity = level;
      return 'ok';
    }
    case 'progress': return bool((v) => { options.progress = v; });
    case 'dry-run': return bool((v) => { options.dryRun = v; });
    case 'atomic': return bool((v) => { options.atomic = v; });
    case 'check-connectivity': return bool((v) => { options.checkConnectivity = v; });
    case 'followtags': return bool((v) => { options.followTags = v; });
    case 'object-format':
      if (value === null || value === 'true') {
        options.reportObjectFormat = true;
        return 'ok';
      }
      if (!isObjectFormat(value)) return { error: `unsupported object format '${value}'` };
      options.reportObjectFormat = true;
      options.objectFormat = value;
      return 'ok';
    case 'cas': {
      const colon = value?.lastIndexOf(':') ?? -1;
      const ref = value?.slice(0, colon) ?? '';
      const expected = value?.slice(colon + 1) ?? '';
      if (colon <= 0 || !isObjectId(expected)) return { error: `invalid lease '${value}': expected <ref>:<object id>` };
      options.leases.set(ref, isNullObjectId(expected) ? null : expected);
      return 'ok';
    }
    case 'push-option':
      // Recorded for completeness: the chain has no hooks to hand them to.
      options.pushOptions.push(value ?? '');
      return 'ok';
    default:
      return 'unsupported';
  }
}

/** Forgets the per-batch options (leases, push options) once a push batch is answered. */
export function endPushBatch(options: HelperOptions): void {
  options.leases.clear();
  options.pushOptions = [];
}
