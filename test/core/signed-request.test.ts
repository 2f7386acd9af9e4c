import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalRequest, formatAuthorization, parseAuthorization, SIGNED_REQUEST_DOMAIN } from '../../src/core/signed-request.ts';

const address = `0x${'ab'.repeat(32)}`;
const lease = `0x${'CD'.repeat(32)}`;
const signature = 'A'.repeat(130) + '==';

const request = suite('a gateway request as signed text and Authorization header');
request('the signed text names domain, method, path with query, lease, time and nonce, one per line', () => {
  const text = canonicalRequest({ method: 'get', path: '/v1/leases/x/logs?tail=5', lease, timeMs: 1_700_000_000_000, nonce: '0123456789abcdef' });
  assert.equal(text.split('\n'), [SIGNED_REQUEST_DOMAIN, 'GET', '/v1/leases/x/logs?tail=5', lease.toLowerCase(), '1700000000000', '0123456789abcdef']);
});
request('another path, lease or time is another text', () => {
  const base = { method: 'GET', path: '/v1/leases/x/status', lease, timeMs: 1, nonce: '0123456789abcdef' };
  const texts = new Set([base, { ...base, path: '/v1/leases/x/logs' }, { ...base, lease: `0x${'ef'.repeat(32)}` }, { ...base, timeMs: 2 }, { ...base, nonce: 'fedcba9876543210' }].map(canonicalRequest));
  assert.is(texts.size, 5);
});
request('a header formatted is parsed back', () => {
  const auth = { address, timeMs: 1_700_000_000_000, nonce: '0123456789abcdef0123456789abcdef', signature };
  assert.equal(parseAuthorization(formatAuthorization(auth)), { ok: true, auth });
});
request('a missing, foreign or malformed header is refused with what is wrong', () => {
  const why = (header: string | undefined) => { const parsed = parseAuthorization(header); return parsed.ok ? '' : parsed.why; };
  assert.match(why(undefined), /no Authorization header/);
  assert.match(why('Bearer abc'), /scheme must be WalrusSig/);
  assert.match(why(`WalrusSig address=0x12,time=1,nonce=0123456789abcdef,signature=${signature}`), /address/);
  assert.match(why(`WalrusSig address=${address},time=soon,nonce=0123456789abcdef,signature=${signature}`), /time/);
  assert.match(why(`WalrusSig address=${address},time=1,nonce=short,signature=${signature}`), /nonce/);
  assert.match(why(`WalrusSig address=${address},time=1,nonce=0123456789abcdef,signature=not base64!`), /signature/);
  assert.match(why(`WalrusSig address=${address},address=${address},time=1,nonce=0123456789abcdef,signature=${signature}`), /twice/);
});
request.run();
