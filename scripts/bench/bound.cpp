// The machine's bound for `strata verify` of a file (scripts/bench/hash.sh): the least work any
// verifier must do on these bytes, measured, not estimated. It reads the file, computes its
// SHA-256 (OpenSSL, the SHA-NI code `strata` uses) and parses it with simdjson (validating
// UTF-8, numbers and structure at gigabytes per second, no tree of objects), and prints the
// seconds of each step. A verifier must read and parse every byte and hash about as many (the
// canonical text, once for the ledger and once per observation), so it cannot take less than
// read+sha256 + parse here.
//
// Build (hash.sh does it): g++ -O2 -std=c++17 bound.cpp -lsimdjson -lcrypto
// Debian package: libsimdjson-dev.
#include <openssl/evp.h>
#include <simdjson.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <vector>

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <file.json>\n", argv[0]);
    return 2;
  }
  // 1. Read and hash the file in 1 MiB pieces, as strata reads it.
  auto start = std::chrono::steady_clock::now();
  const int fd = ::open(argv[1], O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  std::vector<char> piece(1 << 20);
  EVP_MD_CTX* sha = EVP_MD_CTX_new();
  EVP_DigestInit_ex(sha, EVP_sha256(), nullptr);
  std::size_t bytes = 0;
  for (ssize_t n; (n = ::read(fd, piece.data(), piece.size())) > 0;) {
    EVP_DigestUpdate(sha, piece.data(), static_cast<std::size_t>(n));
    bytes += static_cast<std::size_t>(n);
  }
  ::close(fd);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_length = 0;
  EVP_DigestFinal_ex(sha, digest, &digest_length);
  EVP_MD_CTX_free(sha);
  const double read_sha = seconds_since(start);

  // 2. Parse the same bytes. The first parse sizes simdjson's buffers (about four times the
  // file, touched for the first time); the second, timed, is the parse alone, as a verifier
  // that keeps a few MiB would see it.
  simdjson::padded_string text;
  simdjson::dom::parser parser;
  simdjson::dom::element document;
  if (simdjson::padded_string::load(argv[1]).get(text) || parser.parse(text).get(document)) {
    std::fprintf(stderr, "%s: not readable as JSON\n", argv[1]);
    return 2;
  }
  start = std::chrono::steady_clock::now();
  if (parser.parse(text).get(document)) return 2;
  const double parse = seconds_since(start);

  std::printf("read+sha256 %.3f parse %.3f bound %.3f (%zu bytes, digest %02x%02x...)\n", read_sha, parse,
              read_sha + parse, bytes, digest[0], digest[1]);
  return 0;
}
