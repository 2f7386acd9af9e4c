import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MetricsRegistry } from '../../src/core/metrics.ts';

test('counters, gauges and histograms render in Prometheus text format, one series per label set', () => {
  const registry = new MetricsRegistry();
  const passes = registry.counter('demo_passes_total', 'Passes by outcome.', ['outcome']);
  const depth = registry.gauge('demo_queue_depth', 'Keys waiting.');
  const seconds = registry.histogram('demo_seconds', 'Durations.', ['outcome'], [0.1, 1]);
  passes.inc({ outcome: 'settled' });
  passes.inc({ outcome: 'settled' });
  passes.inc({ outcome: 'generic' }, 3);
  depth.set(4);
  seconds.observe(0.05, { outcome: 'settled' });
  seconds.observe(0.5, { outcome: 'settled' });
  seconds.observe(7, { outcome: 'settled' });
  assert.is(registry.render(), [
    '# HELP demo_passes_total Passes by outcome.',
    '# TYPE demo_passes_total counter',
    'demo_passes_total{outcome="settled"} 2',
    'demo_passes_total{outcome="generic"} 3',
    '# HELP demo_queue_depth Keys waiting.',
    '# TYPE demo_queue_depth gauge',
    'demo_queue_depth 4',
    '# HELP demo_seconds Durations.',
    '# TYPE demo_seconds histogram',
    'demo_seconds_bucket{outcome="settled",le="0.1"} 1',
    'demo_seconds_bucket{outcome="settled",le="1"} 2',
    'demo_seconds_bucket{outcome="settled",le="+Inf"} 3',
    'demo_seconds_sum{outcome="settled"} 7.55',
    'demo_seconds_count{outcome="settled"} 3',
    '',
  ].join('\n'));
});

test('label values are escaped; a missing label, a counter going down, a bad or repeated name are refused', () => {
  const registry = new MetricsRegistry();
  const reasons = registry.counter('demo_total', 'Help with a \\ and\na newline.', ['reason']);
  reasons.inc({ reason: 'say "hi"\\\n' });
  assert.match(registry.render(), '# HELP demo_total Help with a \\\\ and\\na newline.');
  assert.match(registry.render(), 'demo_total{reason="say \\"hi\\"\\\\\\n"} 1');
  assert.throws(() => reasons.inc({}), /label reason missing/);
  assert.throws(() => reasons.inc({ reason: 'x' }, -1), /cannot go down/);
  assert.throws(() => registry.gauge('demo-total', 'x'), /not valid/);
  assert.throws(() => registry.gauge('demo_total', 'x'), /registered twice/);
});

test.run();
