/**
 * What npm 10 (10.9.9) prints when `npm ci` cannot fetch a package, as captured from `npm ci --fetch-retries=0` of a
 * one-dependency app in a network namespace of its own: no resolver answering (EAI_AGAIN), a resolver answering
 * NXDOMAIN (ENOTFOUND), a registry port nothing listens on (ECONNREFUSED), a server that resets the connection
 * (ECONNRESET), one whose SYNs are dropped (ETIMEDOUT), one that never answers with --fetch-timeout=2000
 * (FETCH_TIMEOUT), and ones that answer 503, 502 (its URL with credentials, which npm redacts), 500 and 429. Paths
 * are the build pod's (HOME=/build-home, the app in /workspace).
 */
export const NPM_CI_FAILED = {
  EAI_AGAIN: [
    'npm error code EAI_AGAIN',
    'npm error syscall getaddrinfo',
    'npm error errno EAI_AGAIN',
    'npm error request to https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_37_50_793Z-debug-0.log',
  ].join('\n'),
  ENOTFOUND: [
    'npm error code ENOTFOUND',
    'npm error syscall getaddrinfo',
    'npm error errno ENOTFOUND',
    'npm error network request to https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org',
    'npm error network This is a problem related to network connectivity.',
    'npm error network In most cases you are behind a proxy or have bad network settings.',
    'npm error network',
    'npm error network If you are behind a proxy, please make sure that the',
    'npm error network \'proxy\' config is set properly.  See: \'npm help config\'',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_37_51_975Z-debug-0.log',
  ].join('\n'),
  ECONNREFUSED: [
    'npm error code ECONNREFUSED',
    'npm error syscall connect',
    'npm error errno ECONNREFUSED',
    'npm error FetchError: request to http://127.0.0.1:1/left-pad/-/left-pad-1.3.0.tgz failed, reason: connect ECONNREFUSED 127.0.0.1:1',
    'npm error     at ClientRequest.<anonymous> (/usr/local/lib/node_modules/npm/node_modules/minipass-fetch/lib/index.js:130:14)',
    'npm error     at ClientRequest.emit (node:events:519:28)',
    'npm error     at emitErrorEvent (node:_http_client:108:11)',
    'npm error     at _destroy (node:_http_client:967:9)',
    'npm error     at onSocketNT (node:_http_client:987:5)',
    'npm error     at process.processTicksAndRejections (node:internal/process/task_queues:90:21) {',
    'npm error   code: \'ECONNREFUSED\',',
    'npm error   errno: \'ECONNREFUSED\',',
    'npm error   syscall: \'connect\',',
    'npm error   address: \'127.0.0.1\',',
    'npm error   port: 1,',
    'npm error   type: \'system\'',
    'npm error }',
    'npm error',
    'npm error If you are behind a proxy, please make sure that the',
    'npm error \'proxy\' config is set properly.  See: \'npm help config\'',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_37_52_468Z-debug-0.log',
  ].join('\n'),
  ECONNRESET: [
    'npm error code ECONNRESET',
    'npm error syscall connect',
    'npm error errno ECONNRESET',
    'npm error network request to http://127.0.0.1:8081/left-pad/-/left-pad-1.3.0.tgz failed, reason: connect ECONNRESET 127.0.0.1:8081',
    'npm error network This is a problem related to network connectivity.',
    'npm error network In most cases you are behind a proxy or have bad network settings.',
    'npm error network',
    'npm error network If you are behind a proxy, please make sure that the',
    'npm error network \'proxy\' config is set properly.  See: \'npm help config\'',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_37_53_382Z-debug-0.log',
  ].join('\n'),
  E503: [
    'npm error code E503',
    'npm error 503 Service Unavailable - GET http://127.0.0.1:8082/left-pad/-/left-pad-1.3.0.tgz',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_37_53_775Z-debug-0.log',
  ].join('\n'),
  E502: [
    'npm error code E502',
    'npm error 502 Bad Gateway - GET http://user:***@127.0.0.1:8083/left-pad/-/left-pad-1.3.0.tgz',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_37_54_145Z-debug-0.log',
  ].join('\n'),
  E500: [
    'npm error code E500',
    'npm error 500 Internal Server Error - GET http://127.0.0.1:8084/left-pad/-/left-pad-1.3.0.tgz',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_37_54_556Z-debug-0.log',
  ].join('\n'),
  E429: [
    'npm error code E429',
    'npm error 429 Too Many Requests - GET http://127.0.0.1:8085/left-pad/-/left-pad-1.3.0.tgz',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_37_54_924Z-debug-0.log',
  ].join('\n'),
  FETCH_TIMEOUT: [
    'npm error code FETCH_ERROR',
    'npm error errno FETCH_ERROR',
    'npm error network timeout at: http://127.0.0.1:8086/left-pad/-/left-pad-1.3.0.tgz',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_38_02_898Z-debug-0.log',
  ].join('\n'),
  ETIMEDOUT: [
    'npm error code ETIMEDOUT',
    'npm error syscall connect',
    'npm error errno ETIMEDOUT',
    'npm error network request to http://127.0.0.1:8087/left-pad/-/left-pad-1.3.0.tgz failed, reason: connect ETIMEDOUT 127.0.0.1:8087',
    'npm error network This is a problem related to network connectivity.',
    'npm error network In most cases you are behind a proxy or have bad network settings.',
    'npm error network',
    'npm error network If you are behind a proxy, please make sure that the',
    'npm error network \'proxy\' config is set properly.  See: \'npm help config\'',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_38_05_401Z-debug-0.log',
  ].join('\n'),
  /** EAI_AGAIN again, with --loglevel=verbose: npm's verbose lines before, between and after its error lines (its stack shortened). */
  EAI_AGAIN_VERBOSE: [
    'npm http fetch GET https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz attempt 1 failed with EAI_AGAIN',
    'npm verbose type system',
    'npm verbose stack FetchError: request to https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org',
    'npm verbose stack     at ClientRequest.<anonymous> (/usr/local/lib/node_modules/npm/node_modules/minipass-fetch/lib/index.js:130:14)',
    'npm verbose stack     at process.processTicksAndRejections (node:internal/process/task_queues:90:21)',
    'npm error code EAI_AGAIN',
    'npm error syscall getaddrinfo',
    'npm error errno EAI_AGAIN',
    'npm error request to https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org',
    'npm verbose cwd /workspace',
    'npm verbose os Linux 6.18.44-fc-v669',
    'npm verbose node v22.23.3',
    'npm verbose npm  v10.9.9',
    'npm verbose exit 1',
    'npm verbose code 1',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_56_31_081Z-debug-0.log',
  ].join('\n'),
} as const;

/** npm 11 (11.21.2), captured the same way: the same block, some lines joined or worded otherwise. */
export const NPM_11_CI_FAILED = {
  ENOTFOUND: [
    'npm error code ENOTFOUND',
    'npm error syscall getaddrinfo',
    'npm error errno ENOTFOUND',
    'npm error network request to https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org',
    'npm error network This is a problem related to network connectivity.',
    'npm error network In most cases you are behind a proxy or have bad network settings.',
    'npm error network',
    'npm error network If you are behind a proxy, please make sure that the \'proxy\' config is set properly.  See: \'npm help config\'',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_57_13_798Z-debug-0.log',
  ].join('\n'),
  ECONNREFUSED: [
    'npm error code ECONNREFUSED',
    'npm error syscall connect',
    'npm error errno ECONNREFUSED',
    'npm error FetchError: request to http://127.0.0.1:1/left-pad/-/left-pad-1.3.0.tgz failed, reason: connect ECONNREFUSED 127.0.0.1:1',
    'npm error     at ClientRequest.<anonymous> (/usr/local/lib/node_modules/npm/node_modules/minipass-fetch/lib/index.js:130:14)',
    'npm error     at ClientRequest.emit (node:events:519:28)',
    'npm error     at emitErrorEvent (node:_http_client:108:11)',
    'npm error     at _destroy (node:_http_client:967:9)',
    'npm error     at onSocketNT (node:_http_client:987:5)',
    'npm error     at process.processTicksAndRejections (node:internal/process/task_queues:90:21) {',
    'npm error   code: \'ECONNREFUSED\',',
    'npm error   errno: \'ECONNREFUSED\',',
    'npm error   syscall: \'connect\',',
    'npm error   address: \'127.0.0.1\',',
    'npm error   port: 1,',
    'npm error   type: \'system\'',
    'npm error }',
    'npm error',
    'npm error If you are behind a proxy, please make sure that the \'proxy\' config is set properly.  See: \'npm help config\'',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_57_14_197Z-debug-0.log',
  ].join('\n'),
  ECONNRESET: [
    'npm error code ECONNRESET',
    'npm error syscall write',
    'npm error errno ECONNRESET',
    'npm error network request to http://127.0.0.1:8081/left-pad/-/left-pad-1.3.0.tgz failed, reason: write ECONNRESET',
    'npm error network This is a problem related to network connectivity.',
    'npm error network In most cases you are behind a proxy or have bad network settings.',
    'npm error network',
    'npm error network If you are behind a proxy, please make sure that the \'proxy\' config is set properly.  See: \'npm help config\'',
    'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_57_15_333Z-debug-0.log',
  ].join('\n'),
} as const;

/**
 * `npm install` of an app whose dependency's install script fails to download (DNS unreachable, as above): npm
 * reports the script's exit (`code 1`) and quotes its error, whose own code is EAI_AGAIN. Captured as above, with the
 * dependency's path and script written as an installed package's would be.
 */
export const NPM_INSTALL_SCRIPT_FAILED = [
  'npm error code 1',
  'npm error path /workspace/node_modules/dep',
  'npm error command failed',
  'npm error command sh -c node install.js',
  'npm error Error: getaddrinfo EAI_AGAIN storage.example.invalid',
  'npm error     at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:122:26) {',
  'npm error   errno: -3001,',
  'npm error   code: \'EAI_AGAIN\',',
  'npm error   syscall: \'getaddrinfo\',',
  'npm error   hostname: \'storage.example.invalid\'',
  'npm error }',
  'npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_42_35_558Z-debug-0.log',
].join('\n');
