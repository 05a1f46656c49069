// strata-test-server: the test HTTPS server as a process, for CLI tests and benchmarks.
//   strata-test-server <cert-dir> [good|wrong-host|untrusted|plain]
// Prints "<port> <ca-file>" on one line, then serves until stdin closes.
// Control: POST /__fault/<name> switches the fault; GET /__requests returns the count;
// GET /__stats returns {"requests","connections","max_in_flight","throttled"} as JSON.
#include <iostream>
#include <string>

#include "test_https_server.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: strata-test-server <cert-dir> [good|wrong-host|untrusted|plain]\n";
    return 2;
  }
  using Identity = strata::testing::TestHttpsServer::Identity;
  const std::string kind = argc > 2 ? argv[2] : "good";
  const Identity identity = kind == "wrong-host" ? Identity::wrong_host
                            : kind == "untrusted" ? Identity::untrusted
                            : kind == "plain"     ? Identity::plain_http
                                                  : Identity::good;
  const auto certificates = strata::testing::make_test_certificates(argv[1]);
  strata::testing::TestHttpsServer server(certificates, identity);
  std::cout << server.port() << " " << certificates.ca_file << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  return 0;
}
