#include "test_certificates.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace strata::testing {
namespace {

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Cert = std::unique_ptr<X509, decltype(&X509_free)>;

Key new_key() {
  Key key(EVP_EC_gen("P-256"), EVP_PKEY_free);
  if (!key) throw std::runtime_error("EVP_EC_gen failed");
  return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) throw std::runtime_error("bad certificate extension");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// A certificate for `key`, named `cn`, signed by (issuer, issuer_key), or self-signed.
Cert make_cert(EVP_PKEY* key, const char* cn, X509* issuer, EVP_PKEY* issuer_key, const char* san, long serial) {
  Cert cert(X509_new(), X509_free);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 7 * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  if (san == nullptr) {
    add_extension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    add_extension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    add_extension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    add_extension(cert.get(), signer, NID_subject_alt_name, san);
    add_extension(cert.get(), signer, NID_ext_key_usage, "serverAuth");
  }
  add_extension(cert.get(), signer, NID_subject_key_identifier, "hash");
  if (X509_sign(cert.get(), issuer_key != nullptr ? issuer_key : key, EVP_sha256()) == 0)
    throw std::runtime_error("X509_sign failed");
  return cert;
}

std::string pem_of(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  return out;
}

std::string pem_of(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  return out;
}

}  // namespace

const TestCertificates& shared_test_certificates() {
  // Made once per test process, and removed when it exits (ctest runs every case as a process).
  struct Owned {
    std::string directory;
    TestCertificates certificates;
    ~Owned() {
      std::error_code ignored;
      std::filesystem::remove_all(directory, ignored);
    }
  };
  static const Owned owned = [] {
    std::string directory =
        (std::filesystem::temp_directory_path() / ("strata-test-certs-" + std::to_string(::getpid()))).string();
    TestCertificates certificates = make_test_certificates(directory);
    return Owned{std::move(directory), std::move(certificates)};
  }();
  return owned.certificates;
}

TestCertificates make_test_certificates(const std::string& directory) {
  std::filesystem::create_directories(directory);
  Key ca_key = new_key(), other_ca_key = new_key();
  Cert ca = make_cert(ca_key.get(), "Strata Test CA", nullptr, nullptr, nullptr, 1);
  Cert other_ca = make_cert(other_ca_key.get(), "Untrusted Test CA", nullptr, nullptr, nullptr, 2);
  const char* local_san = "DNS:localhost,IP:127.0.0.1,IP:::1";
  Key good_key = new_key(), wrong_key = new_key(), untrusted_key = new_key();
  Cert good = make_cert(good_key.get(), "localhost", ca.get(), ca_key.get(), local_san, 10);
  Cert wrong = make_cert(wrong_key.get(), "other.invalid", ca.get(), ca_key.get(), "DNS:other.invalid", 11);
  Cert untrusted = make_cert(untrusted_key.get(), "localhost", other_ca.get(), other_ca_key.get(), local_san, 12);
  TestCertificates out;
  out.ca_file = (std::filesystem::path(directory) / "ca.pem").string();
  std::ofstream(out.ca_file) << pem_of(ca.get());
  out.good = {pem_of(good.get()), pem_of(good_key.get())};
  out.wrong_host = {pem_of(wrong.get()), pem_of(wrong_key.get())};
  out.untrusted = {pem_of(untrusted.get()), pem_of(untrusted_key.get())};
  return out;
}

}  // namespace strata::testing
