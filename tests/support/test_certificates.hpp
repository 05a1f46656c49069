#pragma once
// Certificates made at test time (never committed): a trusted CA with a leaf for
// localhost/127.0.0.1/::1, a leaf of that CA for another host name, and a leaf for
// localhost signed by a CA the client does not trust.
#include <string>

namespace strata::testing {

struct ServerIdentity {
  std::string chain_pem;  // leaf certificate (the CA is not sent)
  std::string key_pem;
};

struct TestCertificates {
  std::string ca_file;  // PEM file of the trusted CA, for the client
  ServerIdentity good, wrong_host, untrusted;
};

// Generates everything into `directory` (created if needed).
TestCertificates make_test_certificates(const std::string& directory);

// One set per test process, in a temporary directory named after the pid.
const TestCertificates& shared_test_certificates();

}  // namespace strata::testing
