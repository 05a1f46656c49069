#pragma once
// Reading artifact files with the input limits, and writing files so that a reader never
// sees a partial one (write temp, fsync, rename, fsync directory).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "strata/model/json/json.hpp"

namespace strata::store {

inline constexpr std::uintmax_t kMaxArtifactBytes = 512ull * 1024 * 1024;

// The whole file. Throws strata::Error located at the path: missing, a directory,
// unreadable, or larger than kMaxArtifactBytes.
std::string read_artifact_text(const std::string& path);

// `length` bytes of the open file `fd` from `offset` on; throws strata::Error located at `path`
// when they cannot all be read.
std::string read_file_range(int fd, std::uint64_t offset, std::size_t length, const std::string& path);

// The bytes of the open file `fd` from its current offset on, handed to `piece` in order about
// 1 MiB at a time (a file never held whole) until the end or until `piece` returns false;
// errors are located at `path`.
void read_file_pieces(int fd, const std::string& path, const std::function<bool(std::string_view)>& piece);

// read_artifact_text + strict JSON parse; syntax errors are located "path:line:column".
model::Json read_json_file(const std::string& path);

// Atomically replaces `path` with `content` (directories created as needed). `synced` false
// skips the fsyncs: a reader still never sees a partial file, but a crash of the machine may lose
// it; for a file another process reads and makes durable itself (a trajectory's channel).
void write_file_atomically(const std::string& path, const std::string& content, bool synced = true);

// The same for content made in pieces: `produce` passes each piece, in order, to the writer
// it is given, which writes it at once, so the whole content is never held in memory.
using PieceWriter = std::function<void(std::string_view)>;
void write_file_atomically(const std::string& path, const std::function<void(const PieceWriter&)>& produce, bool synced = true);

}  // namespace strata::store
