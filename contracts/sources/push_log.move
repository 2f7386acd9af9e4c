/// The push log (docs/architecture.md, The push log): every push and repack appends a `PushRecord`, and the repository
/// keeps `log_head' = blake2b256(log_head ‖ bcs(record))` from a genesis of 32 zero bytes. The hashed bytes are exactly
/// the previous 32-byte head followed by the BCS of the record. Layouts mirrored by src/contract/bcs.ts.
module walrus_git::push_log;

use std::{bcs, string::String};
use sui::hash;
use walrus_git::pack::PackEntry;

/// `PushRecord.kind` of a push.
const KIND_PUSH: u8 = 0;
/// `PushRecord.kind` of a repack.
const KIND_REPACK: u8 = 1;
/// Length of a log head.
const HEAD_LENGTH: u64 = 32;

/// One ref change. `old` none: the ref did not exist; `new` none: the ref was deleted.
public struct RefUpdate has copy, drop, store {
    name: String,
    old: Option<vector<u8>>,
    new: Option<vector<u8>>,
    forced: bool,
}

/// What the log hash covers for one push or repack.
public struct PushRecord has copy, drop, store {
    repository: ID,
    /// `seq` after this push: the first push is 1.
    seq: u64,
    kind: u8,
    sender: address,
    timestamp_ms: u64,
    updates: vector<RefUpdate>,
    pack: Option<PackEntry>,
    /// The repository's `live_from` after this push.
    live_from: u64,
}

public(package) fun kind_push(): u8 {
    KIND_PUSH
}

public(package) fun kind_repack(): u8 {
    KIND_REPACK
}

/// The log head of a repository with no pushes: 32 zero bytes.
public fun genesis(): vector<u8> {
    let mut head = vector[];
    let mut i = 0;
    while (i < HEAD_LENGTH) {
        head.push_back(0u8);
        i = i + 1;
    };
    head
}

/// blake2b256(prev ‖ bcs(record)).
public fun next_head(prev: &vector<u8>, record: &PushRecord): vector<u8> {
    let mut data = *prev;
    data.append(bcs::to_bytes(record));
    hash::blake2b256(&data)
}

public(package) fun new_ref_update(
    name: String,
    old: Option<vector<u8>>,
    new: Option<vector<u8>>,
    forced: bool,
): RefUpdate {
    RefUpdate { name, old, new, forced }
}

public(package) fun new_record(
    repository: ID,
    seq: u64,
    kind: u8,
    sender: address,
    timestamp_ms: u64,
    updates: vector<RefUpdate>,
    pack: Option<PackEntry>,
    live_from: u64,
): PushRecord {
    PushRecord { repository, seq, kind, sender, timestamp_ms, updates, pack, live_from }
}
