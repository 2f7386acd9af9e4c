/// Events of the walrus_git package (queried as `<original package id>::events::<Name>`). Each carries the
/// repository's ID. Field order is mirrored by src/contract/bcs.ts.
module walrus_git::events;

use std::string::String;
use sui::event;
use walrus_git::{pack::PackEntry, push_log::RefUpdate};

public struct RepositoryCreated has copy, drop {
    repository: ID,
    owner: address,
    name: String,
    head: String,
}

/// A push or repack: the fields of its `PushRecord` in the same order (so a verifier re-encodes the record from the
/// event), then the index the pack was stored at and the new log head.
public struct Pushed has copy, drop {
    repository: ID,
    seq: u64,
    kind: u8,
    sender: address,
    timestamp_ms: u64,
    updates: vector<RefUpdate>,
    pack: Option<PackEntry>,
    live_from: u64,
    pack_index: Option<u64>,
    log_head: vector<u8>,
}

public struct WriterAdded has copy, drop {
    repository: ID,
    writer: address,
}

public struct WriterRemoved has copy, drop {
    repository: ID,
    writer: address,
}

public struct RefProtected has copy, drop {
    repository: ID,
    name: String,
}

public struct RefUnprotected has copy, drop {
    repository: ID,
    name: String,
}

public struct HeadSet has copy, drop {
    repository: ID,
    head: String,
}

public struct OwnershipTransferred has copy, drop {
    repository: ID,
    from: address,
    to: address,
}

public struct ReaderAdded has copy, drop {
    repository: ID,
    reader: address,
}

public struct ReaderRemoved has copy, drop {
    repository: ID,
    reader: address,
}

public(package) fun emit_repository_created(
    repository: ID,
    owner: address,
    name: String,
    head: String,
) {
    event::emit(RepositoryCreated { repository, owner, name, head })
}

public(package) fun emit_pushed(
    repository: ID,
    seq: u64,
    kind: u8,
    sender: address,
    timestamp_ms: u64,
    updates: vector<RefUpdate>,
    pack: Option<PackEntry>,
    live_from: u64,
    pack_index: Option<u64>,
    log_head: vector<u8>,
) {
    event::emit(Pushed {
        repository,
        seq,
        kind,
        sender,
        timestamp_ms,
        updates,
        pack,
        live_from,
        pack_index,
        log_head,
    })
}

public(package) fun emit_writer_added(repository: ID, writer: address) {
    event::emit(WriterAdded { repository, writer })
}

public(package) fun emit_writer_removed(repository: ID, writer: address) {
    event::emit(WriterRemoved { repository, writer })
}

public(package) fun emit_ref_protected(repository: ID, name: String) {
    event::emit(RefProtected { repository, name })
}

public(package) fun emit_ref_unprotected(repository: ID, name: String) {
    event::emit(RefUnprotected { repository, name })
}

public(package) fun emit_head_set(repository: ID, head: String) {
    event::emit(HeadSet { repository, head })
}

public(package) fun emit_ownership_transferred(repository: ID, from: address, to: address) {
    event::emit(OwnershipTransferred { repository, from, to })
}

public(package) fun emit_reader_added(repository: ID, reader: address) {
    event::emit(ReaderAdded { repository, reader })
}

public(package) fun emit_reader_removed(repository: ID, reader: address) {
    event::emit(ReaderRemoved { repository, reader })
}
