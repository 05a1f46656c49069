#pragma once
// An OpenAI-compatible HTTPS server for tests, on 127.0.0.1 with test-time certificates,
// in its own thread. Faults are switchable: every request is answered according to the
// current fault. It counts the requests and connections it receives.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "test_certificates.hpp"

namespace strata::testing {

// Faults: ok, redirect, status:<code>, retry-after, slow-headers, slow-body, truncated,
// huge (9 MiB), invalid-json, deep (200 levels), nan, usage-missing, usage-aliased,
// usage-cached, usage-cache-write, reset (connection closed without an answer),
// reset-reused (reset unless it is the first request on its connection), drop-idle
// (answered, then the connection closes without notice), throttle:<status>[:<seconds>|:date]
// (every third request answered <status>, with a Retry-After every other time), delay:<ms>
// (answered after a pause); "<fault>,delay:<ms>" adds the pause to another fault.
// Connections are kept alive as HTTP/1.1 asks.
class TestHttpsServer {
 public:
  enum class Identity { good, wrong_host, untrusted, plain_http };

  TestHttpsServer(const TestCertificates& certificates, Identity identity = Identity::good);
  ~TestHttpsServer();
  TestHttpsServer(const TestHttpsServer&) = delete;
  TestHttpsServer& operator=(const TestHttpsServer&) = delete;

  unsigned short port() const { return port_; }
  std::string url(const std::string& host = "127.0.0.1") const;  // base URL, e.g. https://127.0.0.1:PORT/v1

  void set_fault(const std::string& fault);
  std::string fault() const;
  // The model's text in successful answers (default "hello from the test server").
  void set_reply(const std::string& reply);
  std::string reply() const;

  int requests() const { return requests_.load(); }
  int connections() const { return connections_.load(); }
  // Most model requests that were read and not yet answered at one time.
  int max_in_flight() const { return max_in_flight_.load(); }
  int throttled() const { return throttled_.load(); }  // answers sent by a throttle fault
  std::string last_request() const;  // request line, headers and body of the last request

 private:
  struct Impl;
  friend struct Impl;
  std::unique_ptr<Impl> impl_;
  unsigned short port_ = 0;
  Identity identity_;
  mutable std::mutex mutex_;
  std::string fault_ = "ok";
  std::string reply_ = "hello from the test server";
  std::string last_request_;
  std::atomic<int> requests_{0}, connections_{0}, in_flight_{0}, max_in_flight_{0}, throttled_{0};
  std::thread thread_;
};

}  // namespace strata::testing
