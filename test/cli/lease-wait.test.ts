import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { waitStage } from '../../src/cli/lease-window.ts';
import type { StatusView } from '../../src/ports/gateway-api.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const view = (extra: Partial<StatusView>): StatusView => ({
  lease: '0xl', app: { namespace: 't', name: 'l' }, phase: 'Live', message: '', ended: null, replicas: { desired: 1, ready: 1, updated: 1 },
  serving: { commit: A, since: null }, refused: null, building: null, head: A, url: 'http://l.apps.test/', conditions: [], pods: [], ...extra,
});

const wait = suite('lease status --wait: the stage of one commit');
wait('queued, building, testing (the build\'s test step), rolling out, live / refused', () => {
  const b = B.slice(0, 7);
  assert.is(waitStage(view({}), b), 'queued');
  assert.is(waitStage(view({ head: B, phase: 'Building', building: { commit: B, attempt: 1, step: 'checkout' } }), b), 'building');
  assert.is(waitStage(view({ head: B, phase: 'Building', building: { commit: B, attempt: 1, step: 'test' } }), b), 'testing');
  assert.is(waitStage(view({ head: B, phase: 'RollingOut', serving: { commit: B, since: null } }), b), 'rolling out');
  assert.is(waitStage(view({ head: B, serving: { commit: B, since: null } }), b), 'live at http://l.apps.test/');
  assert.is(waitStage(view({ head: B, phase: 'Refused', refused: { commit: B, reason: 'TestsFailed', message: 'm', time: 't' } }), b), 'refused: TestsFailed');
});
wait('an ended lease ends the wait, saying why', () => {
  const ended = { reason: 'closed_by_tenant', by: '0xt', at: '2026-11-29T05:00:00.000Z', message: 'closed by the tenant at 2026-11-29T05:00:00Z' };
  assert.is(waitStage(view({ head: B, phase: 'Ended', ended }), B), 'lease ended: closed by the tenant at 2026-11-29T05:00:00Z');
});
wait.run();
