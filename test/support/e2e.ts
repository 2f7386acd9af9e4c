/** The end-to-end tests' world lives in scripts/harness/world.ts, shared with the benchmarks and the demos. */
export * from '../../scripts/harness/world.ts';
