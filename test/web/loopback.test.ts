/** Which `--host` addresses keep `git walrus web` on loopback (Host check on, private contents shown). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isLoopbackHost } from '../../src/core/loopback.ts';

test('all of 127.0.0.0/8, ::1 and localhost are loopback', () => {
  for (const host of ['127.0.0.1', '127.0.0.2', '127.1.2.3', '127.255.255.254', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.2', 'localhost', 'LOCALHOST']) {
    assert.ok(isLoopbackHost(host), `${host} is loopback`);
  }
});

test('any other address serves beyond this machine', () => {
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', '1.127.0.0', '192.168.1.127', '::2', '::ffff:10.0.0.1', '127.0.0', '127.0.0.1.example', 'example.com']) {
    assert.not.ok(isLoopbackHost(host), `${host} is not loopback`);
  }
});

test.run();
