/** The reaper lives in scripts/harness/reaper.ts, shared with the demos. */
export * from '../../scripts/harness/reaper.ts';
