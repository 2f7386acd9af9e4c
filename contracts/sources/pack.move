/// One git pack stored on Walrus: the blob ids of its chunks (a pack over the publisher's body limit is split), its
/// total size and its sha256, and for a private repository the Seal-encrypted key of the pack's encryption. Only
/// `repository::new_pack_entry` and `repository::new_sealed_pack_entry` build one, after checking it.
/// BCS layout mirrored by `PackEntry` in src/contract/bcs.ts.
module walrus_git::pack;

public struct PackEntry has copy, drop, store {
    /// Walrus blob ids (u256) of the chunks, in order.
    chunks: vector<u256>,
    /// Size of the whole pack in bytes.
    size: u64,
    /// sha256 of the whole pack (32 bytes).
    sha256: vector<u8>,
    /// Private repositories: the Seal `EncryptedObject` (BCS) of the pack's data key, under the key id
    /// repository id ‖ nonce. None for a public repository. Sizes and hashes above are those of the stored ciphertext.
    sealed_key: Option<vector<u8>>,
}

public(package) fun new(
    chunks: vector<u256>,
    size: u64,
    sha256: vector<u8>,
    sealed_key: Option<vector<u8>>,
): PackEntry {
    PackEntry { chunks, size, sha256, sealed_key }
}

public fun chunks(self: &PackEntry): vector<u256> {
    self.chunks
}

public fun size(self: &PackEntry): u64 {
    self.size
}

public fun sha256(self: &PackEntry): vector<u8> {
    self.sha256
}

public fun sealed_key(self: &PackEntry): Option<vector<u8>> {
    self.sealed_key
}
