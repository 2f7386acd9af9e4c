/// Git repositories on Sui (docs/architecture.md, State on Sui and Walrus). A shared `Registry` maps (owner, name) to
/// repository ids; each shared `Repository` holds the refs (ref name → git object id), the list of packs stored on
/// Walrus, the writers, the protected refs and a hash chain over every push. `push` is a compare-and-swap over any
/// number of refs: every check runs before any change, so a push applies entirely or aborts.
///
/// The TypeScript twin is src/contract/model.ts: same checks in the same order, same abort codes.
module walrus_git::repository;

use std::string::String;
use sui::{clock::Clock, dynamic_field as df, table::{Self, Table}, vec_set::{Self, VecSet}};
use walrus_git::{events, pack::{Self, PackEntry}, push_log::{Self, RefUpdate}};

/// Package version; objects carry the version that created them and every function checks it, so objects can be
/// migrated after an upgrade and old package versions stop working on them.
const VERSION: u64 = 1;
/// Longest repository name, in bytes.
const MAX_NAME_LENGTH: u64 = 100;
/// Longest ref name, in bytes.
const MAX_REF_NAME_LENGTH: u64 = 255;
/// Writers are stored inline (objects are at most 250 KiB), so their number is capped.
const MAX_WRITERS: u64 = 100;
/// Protected refs are stored inline too.
const MAX_PROTECTED: u64 = 64;
/// Readers are stored inline as well: 1000 addresses are 32 KB of the 250 KiB object limit.
const MAX_READERS: u64 = 1000;
/// Longest sealed data key (a Seal `EncryptedObject` of a 32-byte key is ~250 bytes plus ~65 per key server).
const MAX_SEALED_KEY_LENGTH: u64 = 4096;

/// The object was created by another package version: call the current package.
const EWrongVersion: u64 = 0;
/// Only the repository owner may do this.
const ENotOwner: u64 = 1;
/// Only the owner and the writers may push or repack.
const ENotWriter: u64 = 2;
/// Repository names are 1–100 characters of [A-Za-z0-9._-] and do not start with '.'.
const EInvalidName: u64 = 3;
/// The owner already has a repository with this name.
const ENameTaken: u64 = 4;
/// HEAD must name a valid ref under refs/.
const EInvalidHead: u64 = 5;
/// names, olds, news and forces must have the same length.
const ELengthMismatch: u64 = 6;
/// A push must update at least one ref.
const EEmptyUpdate: u64 = 7;
/// A ref name is not a valid git ref name under refs/.
const EInvalidRefName: u64 = 8;
/// The same ref appears twice in one push.
const EDuplicateRef: u64 = 9;
/// An update whose old and new values are both none changes nothing.
const EInvalidUpdate: u64 = 10;
/// Object ids are 20 (SHA-1) or 32 (SHA-256) bytes.
const EBadHashLen: u64 = 11;
/// All object ids of a repository have one length.
const EHashLenMismatch: u64 = 12;
/// Compare-and-swap failed: the ref is missing or holds another value than `old`.
const ERefMismatch: u64 = 13;
/// `old` is none (create) but the ref exists.
const ERefExists: u64 = 14;
/// Only the owner may force-update or delete a protected ref.
const EProtected: u64 = 15;
/// A pack entry needs at least one chunk, a size above zero and a 32-byte sha256.
const EInvalidPack: u64 = 16;
/// `live_from` may not move backwards nor past the consolidated pack.
const EBadLiveFrom: u64 = 17;
/// The writer list is full.
const ETooManyWriters: u64 = 18;
/// The address is already a writer (or the owner).
const EAlreadyWriter: u64 = 19;
/// The address is not a writer.
const ENotAWriter: u64 = 20;
/// The protected-ref list is full.
const ETooManyProtected: u64 = 21;
/// The ref is already protected.
const EAlreadyProtected: u64 = 22;
/// The ref is not protected.
const ENotProtected: u64 = 23;
/// The new owner is the current owner.
const ESameOwner: u64 = 24;
/// Readers exist only on private repositories (anyone reads a public one).
const ENotPrivate: u64 = 25;
/// The reader list is full.
const ETooManyReaders: u64 = 26;
/// The address is already a reader (or the owner).
const EAlreadyReader: u64 = 27;
/// The address is not a reader.
const ENotAReader: u64 = 28;
/// A pack of a private repository must carry its sealed data key.
const ESealedKeyRequired: u64 = 29;
/// A pack of a public repository carries no sealed key.
const EUnexpectedSealedKey: u64 = 30;
/// A Seal key id must begin with the repository's id bytes.
const EWrongKeyId: u64 = 31;
/// Only the owner, the writers and the readers may decrypt a repository's packs.
const ENoAccess: u64 = 32;
/// The repository moved on (a push or another repack landed) since the consolidated pack was built: nothing changed;
/// build it again from the new state.
const EStaleRepack: u64 = 33;
/// A push would leave one ref as a directory of another (`refs/heads/main` and `refs/heads/main/x`): git's ref store
/// cannot hold both, so no clone or checkout could.
const ERefClash: u64 = 34;

/// Key of a dynamic field on a repository: how many refs lie below `name` + `/` (absent: none). Keeps the check of
/// a new ref against the refs below it to one lookup, however many refs the repository holds.
public struct RefDir has copy, drop, store {
    name: String,
}

/// The shared index of repositories by (owner, name), created once at publish.
public struct Registry has key {
    id: UID,
    version: u64,
    entries: Table<RegistryKey, ID>,
}

public struct RegistryKey has copy, drop, store {
    owner: address,
    name: String,
}

/// One git repository (shared). Field order is the BCS layout mirrored by src/contract/bcs.ts.
public struct Repository has key {
    id: UID,
    version: u64,
    name: String,
    owner: address,
    /// Addresses besides the owner that may push.
    writers: VecSet<address>,
    /// Refs only the owner may force-update or delete.
    protected: VecSet<String>,
    /// The ref HEAD points to.
    head: String,
    /// Length of every object id: 0 until the first ref is written, then 20 (SHA-1) or 32 (SHA-256).
    hash_len: u8,
    /// Ref name → object id.
    refs: Table<String, vector<u8>>,
    /// Pack index → pack, in push order.
    packs: Table<u64, PackEntry>,
    pack_count: u64,
    /// First pack a clone still needs (moved by `repack`).
    live_from: u64,
    /// Number of pushes and repacks so far.
    seq: u64,
    /// Hash chain over every push (see push_log).
    log_head: vector<u8>,
    /// Private repositories store their packs encrypted; `seal_approve` gives the keys to the owner, the writers
    /// and the readers.
    private: bool,
    /// Addresses besides the owner and the writers that may read a private repository.
    readers: VecSet<address>,
}

fun init(ctx: &mut TxContext) {
    transfer::share_object(Registry {
        id: object::new(ctx),
        version: VERSION,
        entries: table::new(ctx),
    });
}

/// Creates and shares a repository owned by the sender, registered as (sender, name); returns its ID.
public fun create(registry: &mut Registry, name: String, head: String, ctx: &mut TxContext): ID {
    new_repository(registry, name, head, false, ctx)
}

/// Checks and builds a pack entry: at least one chunk, a size above zero and a 32-byte sha256.
public fun new_pack_entry(chunks: vector<u256>, size: u64, sha256: vector<u8>): PackEntry {
    assert!(chunks.length() > 0 && size > 0 && sha256.length() == 32, EInvalidPack);
    pack::new(chunks, size, sha256, option::none())
}

/// Updates refs by compare-and-swap and records the push. For each i: `olds[i]` none means the ref must not exist,
/// some means it must hold exactly that id; `news[i]` none deletes the ref. `forces[i]` declares a non-fast-forward
/// (the chain cannot check git ancestry); on a protected ref, forcing or deleting needs the owner. Appends `pack`
/// when given, advances `seq` and `log_head`, emits `Pushed`.
public fun push(
    repo: &mut Repository,
    names: vector<String>,
    olds: vector<Option<vector<u8>>>,
    news: vector<Option<vector<u8>>>,
    forces: vector<bool>,
    pack: Option<PackEntry>,
    clock: &Clock,
    ctx: &TxContext,
) {
    assert!(repo.version == VERSION, EWrongVersion);
    let sender = ctx.sender();
    assert!(repo.is_writer(sender), ENotWriter);
    let n = names.length();
    assert!(olds.length() == n && news.length() == n && forces.length() == n, ELengthMismatch);
    assert!(n > 0, EEmptyUpdate);
    if (pack.is_some()) repo.assert_pack_key(pack.borrow());

    // Every check first.
    let mut hash_len = repo.hash_len;
    let mut i = 0;
    while (i < n) {
        let name = names.borrow(i);
        let old = olds.borrow(i);
        let new = news.borrow(i);
        assert!(is_valid_ref_name(name), EInvalidRefName);
        let mut j = 0;
        while (j < i) {
            assert!(names.borrow(j) != name, EDuplicateRef);
            j = j + 1;
        };
        assert!(old.is_some() || new.is_some(), EInvalidUpdate);
        if (new.is_some()) {
            let len = new.borrow().length();
            assert!(len == 20 || len == 32, EBadHashLen);
            if (hash_len == 0) {
                hash_len = (len as u8);
            } else {
                assert!(len == (hash_len as u64), EHashLenMismatch);
            };
        };
        let exists = repo.refs.contains(*name);
        if (old.is_none()) {
            assert!(!exists, ERefExists);
        } else {
            assert!(exists && repo.refs.borrow(*name) == old.borrow(), ERefMismatch);
        };
        if (repo.protected.contains(name) && (*forces.borrow(i) || new.is_none())) {
            assert!(sender == repo.owner, EProtected);
        };
        if (old.is_none() && new.is_some()) assert!(!repo.clashes(&names, &news, i), ERefClash);
        i = i + 1;
    };

    // Then the changes.
    let mut updates = vector[];
    let mut i = 0;
    while (i < n) {
        let name = *names.borrow(i);
        let new = *news.borrow(i);
        if (new.is_none()) {
            repo.refs.remove(name);
        } else if (repo.refs.contains(name)) {
            *repo.refs.borrow_mut(name) = *new.borrow();
        } else {
            repo.refs.add(name, *new.borrow());
        };
        if (olds.borrow(i).is_none() || new.is_none()) repo.count_below(&name, new.is_some());
        updates.push_back(push_log::new_ref_update(name, *olds.borrow(i), new, *forces.borrow(i)));
        i = i + 1;
    };
    repo.hash_len = hash_len;
    let pack_index = if (pack.is_some()) {
        option::some(repo.append_pack(*pack.borrow()))
    } else {
        option::none()
    };
    repo.record(push_log::kind_push(), clock.timestamp_ms(), updates, pack, pack_index, sender);
}

/// Appends a consolidated pack and moves `live_from` to it, unless a pack was appended since the consolidated one
/// was built. `live_from` must be the index the consolidated pack gets, i.e. `pack_count` as read when it was built:
/// a pack pushed since then would stay live before it, thin against packs no longer live, and a new clone could not
/// read it. So a smaller value (not below the current `live_from`) aborts with `EStaleRepack`, and a value below the
/// current `live_from` or past the new pack with `EBadLiveFrom`. Recorded in the log like a push with no ref updates.
/// Kept for clients that predate `repack_at`, which compares the whole state (`seq`), ref-only pushes included.
public fun repack(
    repo: &mut Repository,
    pack: PackEntry,
    live_from: u64,
    clock: &Clock,
    ctx: &TxContext,
) {
    assert!(repo.version == VERSION, EWrongVersion);
    assert!(repo.is_writer(ctx.sender()), ENotWriter);
    assert!(live_from >= repo.live_from && live_from <= repo.pack_count, EBadLiveFrom);
    repo.assert_pack_key(&pack);
    assert!(live_from == repo.pack_count, EStaleRepack);
    repo.consolidate(pack, clock, ctx);
}

/// Compare-and-swap repack (`git walrus gc`): appends a consolidated pack and moves `live_from` to it, only if the
/// repository is still at `expected_seq`, the `seq` whose refs the pack was built from; otherwise aborts with
/// `EStaleRepack` and changes nothing. Recorded in the log like a push with no ref updates.
public fun repack_at(
    repo: &mut Repository,
    pack: PackEntry,
    expected_seq: u64,
    clock: &Clock,
    ctx: &TxContext,
) {
    assert!(repo.version == VERSION, EWrongVersion);
    assert!(repo.is_writer(ctx.sender()), ENotWriter);
    assert!(repo.seq == expected_seq, EStaleRepack);
    repo.assert_pack_key(&pack);
    repo.consolidate(pack, clock, ctx);
}

public fun add_writer(repo: &mut Repository, writer: address, ctx: &TxContext) {
    repo.assert_owner(ctx);
    assert!(!repo.is_writer(writer), EAlreadyWriter);
    assert!(repo.writers.size() < MAX_WRITERS, ETooManyWriters);
    repo.writers.insert(writer);
    events::emit_writer_added(object::id(repo), writer);
}

public fun remove_writer(repo: &mut Repository, writer: address, ctx: &TxContext) {
    repo.assert_owner(ctx);
    assert!(repo.writers.contains(&writer), ENotAWriter);
    repo.writers.remove(&writer);
    events::emit_writer_removed(object::id(repo), writer);
}

public fun protect_ref(repo: &mut Repository, name: String, ctx: &TxContext) {
    repo.assert_owner(ctx);
    assert!(is_valid_ref_name(&name), EInvalidRefName);
    assert!(!repo.protected.contains(&name), EAlreadyProtected);
    assert!(repo.protected.size() < MAX_PROTECTED, ETooManyProtected);
    repo.protected.insert(name);
    events::emit_ref_protected(object::id(repo), name);
}

public fun unprotect_ref(repo: &mut Repository, name: String, ctx: &TxContext) {
    repo.assert_owner(ctx);
    assert!(repo.protected.contains(&name), ENotProtected);
    repo.protected.remove(&name);
    events::emit_ref_unprotected(object::id(repo), name);
}

public fun set_head(repo: &mut Repository, head: String, ctx: &TxContext) {
    repo.assert_owner(ctx);
    assert!(is_valid_ref_name(&head), EInvalidHead);
    repo.head = head;
    events::emit_head_set(object::id(repo), head);
}

/// Hands the repository to `new_owner` and re-keys its registry entry. The new owner leaves the writer and reader
/// lists (the owner always writes and reads); the old owner keeps no access unless added back as a writer.
public fun transfer_ownership(
    registry: &mut Registry,
    repo: &mut Repository,
    new_owner: address,
    ctx: &TxContext,
) {
    assert!(registry.version == VERSION, EWrongVersion);
    repo.assert_owner(ctx);
    assert!(new_owner != repo.owner, ESameOwner);
    let name = repo.name;
    assert!(!registry.entries.contains(RegistryKey { owner: new_owner, name }), ENameTaken);
    let id = registry.entries.remove(RegistryKey { owner: repo.owner, name });
    registry.entries.add(RegistryKey { owner: new_owner, name }, id);
    if (repo.writers.contains(&new_owner)) {
        repo.writers.remove(&new_owner);
    };
    if (repo.readers.contains(&new_owner)) {
        repo.readers.remove(&new_owner);
    };
    let from = repo.owner;
    repo.owner = new_owner;
    events::emit_ownership_transferred(object::id(repo), from, new_owner);
}

// === Reads ===

public fun repository_id(registry: &Registry, owner: address, name: String): Option<ID> {
    let key = RegistryKey { owner, name };
    if (registry.entries.contains(key)) {
        option::some(*registry.entries.borrow(key))
    } else {
        option::none()
    }
}

public fun ref_value(repo: &Repository, name: String): Option<vector<u8>> {
    if (repo.refs.contains(name)) {
        option::some(*repo.refs.borrow(name))
    } else {
        option::none()
    }
}

public fun pack_at(repo: &Repository, index: u64): Option<PackEntry> {
    if (repo.packs.contains(index)) {
        option::some(*repo.packs.borrow(index))
    } else {
        option::none()
    }
}

/// The owner and the listed writers may push.
public fun is_writer(repo: &Repository, who: address): bool {
    who == repo.owner || repo.writers.contains(&who)
}

public fun is_protected(repo: &Repository, name: String): bool {
    repo.protected.contains(&name)
}

public fun name(repo: &Repository): String {
    repo.name
}

public fun owner(repo: &Repository): address {
    repo.owner
}

public fun writers(repo: &Repository): vector<address> {
    *repo.writers.keys()
}

public fun protected_refs(repo: &Repository): vector<String> {
    *repo.protected.keys()
}

public fun head(repo: &Repository): String {
    repo.head
}

public fun hash_len(repo: &Repository): u8 {
    repo.hash_len
}

public fun ref_count(repo: &Repository): u64 {
    repo.refs.length()
}

public fun pack_count(repo: &Repository): u64 {
    repo.pack_count
}

public fun live_from(repo: &Repository): u64 {
    repo.live_from
}

public fun seq(repo: &Repository): u64 {
    repo.seq
}

public fun log_head(repo: &Repository): vector<u8> {
    repo.log_head
}

// === Private repositories (docs/architecture.md, Private repositories (Seal)) ===

/// Like `create`, for a repository whose packs are encrypted: pushes must carry each pack's sealed data key, and
/// only the owner, the writers and the readers get the keys from the Seal key servers (`seal_approve`).
public fun create_private(registry: &mut Registry, name: String, head: String, ctx: &mut TxContext): ID {
    new_repository(registry, name, head, true, ctx)
}

/// Like `new_pack_entry`, with the Seal `EncryptedObject` of the pack's data key (1–4096 bytes).
public fun new_sealed_pack_entry(
    chunks: vector<u256>,
    size: u64,
    sha256: vector<u8>,
    sealed_key: vector<u8>,
): PackEntry {
    assert!(chunks.length() > 0 && size > 0 && sha256.length() == 32, EInvalidPack);
    let n = sealed_key.length();
    assert!(n > 0 && n <= MAX_SEALED_KEY_LENGTH, EInvalidPack);
    pack::new(chunks, size, sha256, option::some(sealed_key))
}

public fun add_reader(repo: &mut Repository, reader: address, ctx: &TxContext) {
    repo.assert_owner(ctx);
    assert!(repo.private, ENotPrivate);
    assert!(reader != repo.owner && !repo.readers.contains(&reader), EAlreadyReader);
    assert!(repo.readers.size() < MAX_READERS, ETooManyReaders);
    repo.readers.insert(reader);
    events::emit_reader_added(object::id(repo), reader);
}

/// Keys are derived per id on request, so a removed reader gets no key from then on (what it already decrypted
/// stays decrypted).
public fun remove_reader(repo: &mut Repository, reader: address, ctx: &TxContext) {
    repo.assert_owner(ctx);
    assert!(repo.readers.contains(&reader), ENotAReader);
    repo.readers.remove(&reader);
    events::emit_reader_removed(object::id(repo), reader);
}

/// The Seal access policy, dry-run by the key servers with the requester as sender: aborts unless `id` (the key id
/// without the package prefix) begins with this repository's id bytes and the sender may read. No side effects.
entry fun seal_approve(id: vector<u8>, repo: &Repository, ctx: &TxContext) {
    assert!(repo.version == VERSION, EWrongVersion);
    assert!(has_prefix(&id, &repo.id.to_bytes()), EWrongKeyId);
    assert!(repo.can_read(ctx.sender()), ENoAccess);
}

public fun is_private(repo: &Repository): bool {
    repo.private
}

public fun readers(repo: &Repository): vector<address> {
    *repo.readers.keys()
}

/// The owner, the writers and the readers may read a private repository (anyone may read a public one, whose
/// packs are not encrypted; this answers for the key servers' policy all the same).
public fun can_read(repo: &Repository, who: address): bool {
    repo.is_writer(who) || repo.readers.contains(&who)
}

// === Internals ===

fun assert_owner(repo: &Repository, ctx: &TxContext) {
    assert!(repo.version == VERSION, EWrongVersion);
    assert!(ctx.sender() == repo.owner, ENotOwner);
}

/// Creates, registers and shares a repository (`create`, `create_private`).
fun new_repository(
    registry: &mut Registry,
    name: String,
    head: String,
    private: bool,
    ctx: &mut TxContext,
): ID {
    assert!(registry.version == VERSION, EWrongVersion);
    assert!(is_valid_name(&name), EInvalidName);
    assert!(is_valid_ref_name(&head), EInvalidHead);
    let owner = ctx.sender();
    assert!(!registry.entries.contains(RegistryKey { owner, name }), ENameTaken);
    let repo = Repository {
        id: object::new(ctx),
        version: VERSION,
        name,
        owner,
        writers: vec_set::empty(),
        protected: vec_set::empty(),
        head,
        hash_len: 0,
        refs: table::new(ctx),
        packs: table::new(ctx),
        pack_count: 0,
        live_from: 0,
        seq: 0,
        log_head: push_log::genesis(),
        private,
        readers: vec_set::empty(),
    };
    let id = object::id(&repo);
    registry.entries.add(RegistryKey { owner, name }, id);
    events::emit_repository_created(id, owner, name, head);
    transfer::share_object(repo);
    id
}

/// A private repository's packs carry their sealed data key, a public repository's do not.
fun assert_pack_key(repo: &Repository, pack: &PackEntry) {
    if (repo.private) {
        assert!(pack.sealed_key().is_some(), ESealedKeyRequired);
    } else {
        assert!(pack.sealed_key().is_none(), EUnexpectedSealedKey);
    }
}

/// Whether `bytes` begins with `prefix` (also the key-id check of `lease_access`).
public(package) fun has_prefix(bytes: &vector<u8>, prefix: &vector<u8>): bool {
    let n = prefix.length();
    if (bytes.length() < n) return false;
    let mut i = 0;
    while (i < n) {
        if (*bytes.borrow(i) != *prefix.borrow(i)) return false;
        i = i + 1;
    };
    true
}

fun append_pack(repo: &mut Repository, pack: PackEntry): u64 {
    let index = repo.pack_count;
    repo.packs.add(index, pack);
    repo.pack_count = index + 1;
    index
}

/// Appends the consolidated pack, makes it the first live one and records the repack (`repack`, `repack_at`).
fun consolidate(repo: &mut Repository, pack: PackEntry, clock: &Clock, ctx: &TxContext) {
    let index = repo.append_pack(pack);
    repo.live_from = index;
    repo.record(
        push_log::kind_repack(),
        clock.timestamp_ms(),
        vector[],
        option::some(pack),
        option::some(index),
        ctx.sender(),
    );
}

/// Advances `seq`, chains the record into `log_head` and emits `Pushed`.
fun record(
    repo: &mut Repository,
    kind: u8,
    timestamp_ms: u64,
    updates: vector<RefUpdate>,
    pack: Option<PackEntry>,
    pack_index: Option<u64>,
    sender: address,
) {
    repo.seq = repo.seq + 1;
    let repository = object::id(repo);
    let record = push_log::new_record(
        repository,
        repo.seq,
        kind,
        sender,
        timestamp_ms,
        updates,
        pack,
        repo.live_from,
    );
    repo.log_head = push_log::next_head(&repo.log_head, &record);
    events::emit_pushed(
        repository,
        repo.seq,
        kind,
        sender,
        timestamp_ms,
        updates,
        pack,
        repo.live_from,
        pack_index,
        repo.log_head,
    );
}

/// Repository names: 1–100 bytes of [A-Za-z0-9._-], not starting with '.'.
public(package) fun is_valid_name(name: &String): bool {
    let b = name.as_bytes();
    let n = b.length();
    if (n == 0 || n > MAX_NAME_LENGTH || *b.borrow(0) == 0x2e) return false;
    let mut i = 0;
    while (i < n) {
        let c = *b.borrow(i);
        let ok =
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
            || c == 0x2e || c == 0x5f || c == 0x2d;
        if (!ok) return false;
        i = i + 1;
    };
    true
}

/// Whether creating `names[i]` would clash with a ref as file and directory, once the push applied: a proper prefix of
/// it (cut at a `/`) that stays a ref or is pushed too, or a ref below it that stays or is pushed too. Bounded by the
/// name's length and the push's size, never by the number of refs: those below a name are counted in `RefDir`.
fun clashes(repo: &Repository, names: &vector<String>, news: &vector<Option<vector<u8>>>, i: u64): bool {
    let name = names.borrow(i);
    let bytes = name.as_bytes();
    let mut k = 0;
    while (k < bytes.length()) {
        if (bytes[k] == 0x2f) {
            let prefix = name.substring(0, k);
            let (pushed, deleted) = pushed_as(names, news, &prefix);
            if ((repo.refs.contains(prefix) || pushed) && !deleted) return true;
        };
        k = k + 1;
    };
    let mut below = if (df::exists_(&repo.id, RefDir { name: *name })) {
        *df::borrow<RefDir, u64>(&repo.id, RefDir { name: *name })
    } else { 0 };
    let n = names.length();
    let mut j = 0;
    while (j < n) {
        if (is_below(names.borrow(j), name)) {
            if (news.borrow(j).is_some()) return true;
            if (below > 0) below = below - 1;
        };
        j = j + 1;
    };
    below > 0
}

/// Whether the push names `name`, and whether it deletes it.
fun pushed_as(names: &vector<String>, news: &vector<Option<vector<u8>>>, name: &String): (bool, bool) {
    let mut j = 0;
    while (j < names.length()) {
        if (names.borrow(j) == name) return (true, news.borrow(j).is_none());
        j = j + 1;
    };
    (false, false)
}

/// Whether `name` lies below `dir` (starts with `dir` + `/`).
fun is_below(name: &String, dir: &String): bool {
    let (a, b) = (name.as_bytes(), dir.as_bytes());
    if (a.length() <= b.length() || a[b.length()] != 0x2f) return false;
    let mut k = 0;
    while (k < b.length()) {
        if (a[k] != b[k]) return false;
        k = k + 1;
    };
    true
}

/// Counts a ref created (`added`) or deleted below each proper prefix of its name.
fun count_below(repo: &mut Repository, name: &String, added: bool) {
    let bytes = name.as_bytes();
    let mut k = 0;
    while (k < bytes.length()) {
        if (bytes[k] == 0x2f) {
            let key = RefDir { name: name.substring(0, k) };
            if (added) {
                if (df::exists_(&repo.id, key)) {
                    let count = df::borrow_mut<RefDir, u64>(&mut repo.id, key);
                    *count = *count + 1;
                } else {
                    df::add(&mut repo.id, key, 1u64);
                };
            } else if (df::exists_(&repo.id, key)) {
                // (A ref created before refs were counted has no count to take back.)
                let count = *df::borrow<RefDir, u64>(&repo.id, key);
                if (count == 1) {
                    let _: u64 = df::remove(&mut repo.id, key);
                } else {
                    *df::borrow_mut<RefDir, u64>(&mut repo.id, key) = count - 1;
                };
            };
        };
        k = k + 1;
    };
}

/// Ref names: `refs/` then at most 255 bytes in all of printable ASCII without `~^:?*[\`, no `..`, `//`, `@{` or
/// `/.`, no component ending in `.lock`, not ending in `/` or `.` (git check-ref-format, restricted to refs/).
public(package) fun is_valid_ref_name(name: &String): bool {
    let b = name.as_bytes();
    let n = b.length();
    if (n < 6 || n > MAX_REF_NAME_LENGTH) return false;
    let prefix = b"refs/";
    let mut j = 0;
    while (j < 5) {
        if (*b.borrow(j) != *prefix.borrow(j)) return false;
        j = j + 1;
    };
    let mut i = 0;
    while (i < n) {
        let c = *b.borrow(i);
        if (
            c < 0x21 || c > 0x7e || c == 0x7e || c == 0x5e || c == 0x3a || c == 0x3f || c == 0x2a || c == 0x5b
            || c == 0x5c
        ) return false;
        if (i > 0) {
            let p = *b.borrow(i - 1);
            if (
                (p == 0x2e && c == 0x2e) || (p == 0x2f && c == 0x2f) || (p == 0x40 && c == 0x7b)
                || (p == 0x2f && c == 0x2e)
            ) return false;
        };
        if (c == 0x2f && ends_with_lock(b, i)) return false;
        i = i + 1;
    };
    let last = *b.borrow(n - 1);
    last != 0x2f && last != 0x2e && !ends_with_lock(b, n)
}

/// Whether `b[..end]` ends with ".lock".
fun ends_with_lock(b: &vector<u8>, end: u64): bool {
    let suffix = b".lock";
    if (end < 5) return false;
    let mut i = 0;
    while (i < 5) {
        if (*b.borrow(end - 5 + i) != *suffix.borrow(i)) return false;
        i = i + 1;
    };
    true
}

// === Test-only ===

#[test_only]
public fun init_for_testing(ctx: &mut TxContext) {
    init(ctx)
}

/// `seal_approve` is a non-public entry function (as Seal recommends); tests call it through this.
#[test_only]
public fun seal_approve_for_testing(id: vector<u8>, repo: &Repository, ctx: &TxContext) {
    seal_approve(id, repo, ctx)
}

#[test_only]
public fun set_version_for_testing(repo: &mut Repository, version: u64) {
    repo.version = version;
}

#[test_only]
public fun set_registry_version_for_testing(registry: &mut Registry, version: u64) {
    registry.version = version;
}
