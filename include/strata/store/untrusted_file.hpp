#pragma once
// A file another process wrote (a provider's trajectory channel, an agent's telemetry file), read
// without trusting it: a symbolic link is not followed, a FIFO does not block the open and is
// refused, only a regular file of at most `max_bytes` is read.
#include <cstddef>
#include <optional>
#include <string>

namespace strata::store {

enum class UntrustedFileRefusal { none, missing, symbolic_link, not_regular, too_large };

struct UntrustedFile {
  std::optional<std::string> text;  // the content, when it was read
  UntrustedFileRefusal refused = UntrustedFileRefusal::none;
};

UntrustedFile read_untrusted_file(const std::string& path, std::size_t max_bytes);

}  // namespace strata::store
