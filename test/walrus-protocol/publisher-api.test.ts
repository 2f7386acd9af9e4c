import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { storedBlobOf, errorReasonOf } from '../../src/walrus-protocol/publisher-api.ts';

const stored = suite('storedBlobOf');

stored('reads both success shapes of the publisher (camelCase, as the daemon serializes them)', () => {
  const created = {
    newlyCreated: {
      blobObject: { id: '0xe91eee8c5b6f35b9a250cfc29e30f0d9e5463a21fd8d1ddb0fc22d44db4eac50', registeredEpoch: 34, blobId: 'M4hsZGQ1oCktdzegB6HnI6Mi28S2nqOPHxK-W7_4BUk', size: 17, encodingType: 'RS2', certifiedEpoch: 34, storage: { id: '0x4748cd83217b5ce7aa77e7f1ad6fc5f7f694e26a157381b9391ac65c47815faf', startEpoch: 34, endEpoch: 35, storageSize: 66034000 }, deletable: false },
      resourceOperation: { registerFromScratch: { encodedLength: 66034000, epochsAhead: 1 } },
      cost: 132300,
    },
  };
  assert.equal(storedBlobOf(created), { blobId: 'M4hsZGQ1oCktdzegB6HnI6Mi28S2nqOPHxK-W7_4BUk', endEpoch: 35, created: true });
  const certified = { alreadyCertified: { blobId: 'M4hsZGQ1oCktdzegB6HnI6Mi28S2nqOPHxK-W7_4BUk', event: { txDigest: '4XQHFa9S324wTzYHF3vsBSwpUZuLpmwTHYMFv9nsDKSs', eventSeq: '0' }, endEpoch: 35 } };
  assert.equal(storedBlobOf(certified), { blobId: 'M4hsZGQ1oCktdzegB6HnI6Mi28S2nqOPHxK-W7_4BUk', endEpoch: 35, created: false });
  assert.is(storedBlobOf({ markedInvalid: {} }), undefined);
  assert.is(storedBlobOf('nonsense'), undefined);
});

stored.run();

const reason = suite('errorReasonOf');

reason('finds the ErrorInfo reason of an AIP-193 error body', () => {
  assert.is(errorReasonOf({ error: { code: 404, status: 'NOT_FOUND', message: 'm', details: [{ '@type': 'DebugInfo' }, { '@type': 'ErrorInfo', reason: 'BLOB_NOT_FOUND', domain: 'daemon.walrus.space' }] } }), 'BLOB_NOT_FOUND');
  assert.is(errorReasonOf('plain text'), undefined);
});

reason.run();
