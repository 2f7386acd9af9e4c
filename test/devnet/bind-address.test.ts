import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { NetworkInterfaceInfo } from 'node:os';
import { checkAdvertisedAddress, checkBindAddress } from '../../src/devnet/bind-address.ts';
import { UsageError } from '../../src/core/errors.ts';

const bind = suite('checkBindAddress');

const interfaces = {
  lo: [{ address: '127.0.0.1', family: 'IPv4' }, { address: '::1', family: 'IPv6' }],
  'walrus-br0': [{ address: '10.77.0.1', family: 'IPv4' }, { address: 'fd00:77::1', family: 'IPv6' }],
} as unknown as NodeJS.Dict<NetworkInterfaceInfo[]>;

bind('accepts loopback and the addresses of local interfaces', () => {
  for (const host of ['127.0.0.1', '127.0.0.2', '::1', '0:0:0:0:0:0:0:1', '10.77.0.1', 'fd00:77::1', 'fd00:77:0::1']) assert.is(checkBindAddress(host, interfaces), host);
});

bind('refuses wildcards, foreign addresses and names, saying what is local', () => {
  for (const host of ['0.0.0.0', '::', '10.77.0.2', '8.8.8.8', 'localhost', 'example.com', '']) {
    try {
      checkBindAddress(host, interfaces);
      assert.unreachable(host);
    } catch (error) {
      assert.instance(error, UsageError, host);
      assert.match((error as Error).message, host === 'localhost' || host === 'example.com' || host === '' ? /is not an IP address/ : /local: 127\.0\.0\.1, ::1, 10\.77\.0\.1, fd00:77::1/);
    }
  }
});

bind('a storage node\'s advertised address: host:port on loopback or a local interface, IPv6 in brackets', () => {
  for (const address of ['127.0.0.1:9101', '10.77.0.1:1', '[::1]:65535', '[fd00:77::1]:9101']) assert.is(checkAdvertisedAddress(address, interfaces), address);
  const refusals: [string, RegExp][] = [
    ['127.0.0.1', /is not host:port/], ['127.0.0.1:0', /is not host:port/], ['127.0.0.1:70000', /is not host:port/],
    ['::1:9101', /is not host:port/], ['[127.0.0.1]:9101', /is not host:port/], ['localhost:9101', /--storage-node-address 'localhost' is not an IP address/],
    ['8.8.8.8:9101', /--storage-node-address 8\.8\.8\.8 is neither a loopback address nor an address of a local interface/], ['0.0.0.0:9101', /neither a loopback/],
  ];
  for (const [address, message] of refusals) {
    try {
      checkAdvertisedAddress(address, interfaces);
      assert.unreachable(address);
    } catch (error) {
      assert.instance(error, UsageError, address);
      assert.match((error as Error).message, message);
    }
  }
});

bind.run();
