#pragma once
// Appending a run's block to the end of a ledger file in place, so that the cost of a fold
// grows with the block and not with the ledger (docs/DECISIONS.md, "In-place append").
//
// Crash safety comes from an undo record, <ledger>.append-undo, made durable before the
// first byte of the file changes: it names the file (inode) and where its old closing
// began. Until the record is removed, every reader sees the old ledger (the bytes before
// that offset plus the old closing), and the next `strata run` restores it physically;
// the appended observations are still in the journal, which is only emptied after the
// record is gone. Writers hold flock(LOCK_EX) on the ledger while its bytes change and
// readers flock(LOCK_SH) while they read, so a live append is never seen half done.
#include <optional>
#include <string>
#include <span>

#include "strata/model/json/json.hpp"
#include "strata/model/study/ledger_hasher.hpp"

namespace strata::store {

std::string append_undo_path_for(const std::string& ledger_path);

// The last bytes of a ledger in the persisted layout with at least one observation.
std::string ledger_closing(const std::string& content_hash);

// Where that closing begins in the open file `fd`, when the file ends with it exactly.
std::optional<long long> closing_offset(int fd, const std::string& content_hash);

// Appends observations to the end of a ledger file in the persisted layout: the new
// observations and the new seal replace the old closing, under an undo record. `hasher`
// holds the file's hash state and is extended. Returns the new contentHash, or nullopt
// (nothing changed) when the file does not end with the exact closing of `old_hash` (an
// empty ledger, or another layout): then rewrite it in full.
std::optional<std::string> append_to_ledger_file(const std::string& ledger_path, const std::string& old_hash,
                                                 model::LedgerHasher& hasher, std::span<const model::Json> appended);

// Restores the ledger an interrupted append left behind (only while holding the ledger's
// run lock). Returns true when there was one to undo.
bool undo_interrupted_append(const std::string& ledger_path);

// What a reader must see of a file it just read: while an undo record for it exists, the
// old ledger. `inode` identifies the file that was read.
void apply_pending_undo(const std::string& path, unsigned long long inode, std::string& text);

}  // namespace strata::store
