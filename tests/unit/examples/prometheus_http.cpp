// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-prometheus's HTTP responder (examples/prometheus/http.hpp): request lines, the status
// codes, the response bytes, and serve() on a real loopback socket, stopped by a descriptor.
#include "../../../examples/prometheus/http.hpp"

#define BOOST_TEST_MODULE replicant.unit.examples.prometheus_http
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

namespace prom = replicant::examples::prometheus;

namespace {

auto metrics_text() -> std::string { return "replicant_up 1\n"; }

// Sends @p request to 127.0.0.1:@p port and returns everything until the server closes.
auto fetch(std::uint16_t port, std::string_view request) -> std::string {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  BOOST_TEST_REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  BOOST_TEST_REQUIRE(::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  BOOST_TEST_REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
  std::string all;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10000) <= 0) break;
    char chunk[4096];
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) break;
    all.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return all;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http)

BOOST_AUTO_TEST_CASE(parses_request_lines) {
  const auto r = prom::parse_request_line("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->method == "GET");
  BOOST_TEST(r->path == "/metrics");
  BOOST_TEST(prom::parse_request_line("GET /metrics?a=b HTTP/1.0\r\n\r\n")->path == "/metrics");
  BOOST_TEST(prom::parse_request_line("HEAD / HTTP/1.0\n\n")->method == "HEAD");
  for (const std::string_view bad :
       {"", "GET", "GET /metrics", "GET /metrics HTTP/2", "GET metrics HTTP/1.1", " /metrics HTTP/1.1",
        "get /metrics HTTP/1.1", "GET  /metrics HTTP/1.1", "GET /metrics HTTP/1.1 extra"}) {
    BOOST_TEST(!prom::parse_request_line(bad).has_value(), bad);
  }
}

BOOST_AUTO_TEST_CASE(answers_metrics_and_the_status_codes) {
  const auto ok = prom::respond("GET /metrics HTTP/1.1\r\n\r\n", metrics_text);
  BOOST_TEST(ok.status == 200);
  BOOST_TEST(ok.content_type == prom::metrics_content_type);
  BOOST_TEST(ok.body == metrics_text());
  BOOST_TEST(prom::respond("HEAD /metrics HTTP/1.1\r\n\r\n", metrics_text).head_only);
  BOOST_TEST(prom::respond("GET / HTTP/1.1\r\n\r\n", metrics_text).status == 200);
  BOOST_TEST(prom::respond("GET /other HTTP/1.1\r\n\r\n", metrics_text).status == 404);
  BOOST_TEST(prom::respond("POST /metrics HTTP/1.1\r\n\r\n", metrics_text).status == 405);
  BOOST_TEST(prom::respond("garbage\r\n\r\n", metrics_text).status == 400);
}

BOOST_AUTO_TEST_CASE(formats_http_1_0_responses) {
  const auto bytes = prom::format_response(prom::respond("GET /metrics HTTP/1.1\r\n\r\n", metrics_text));
  BOOST_TEST(bytes ==
             "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: 15\r\n"
             "Connection: close\r\n\r\nreplicant_up 1\n");
  const auto head = prom::format_response(prom::respond("HEAD /metrics HTTP/1.1\r\n\r\n", metrics_text));
  BOOST_TEST(head.ends_with("Content-Length: 15\r\nConnection: close\r\n\r\n"), "no body, but its length");
  const auto refused = prom::format_response(prom::respond("PUT /metrics HTTP/1.1\r\n\r\n", metrics_text));
  BOOST_TEST(refused.starts_with("HTTP/1.0 405 Method Not Allowed\r\n"));
  BOOST_TEST(refused.find("\r\nAllow: GET, HEAD\r\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(serves_on_loopback_until_stopped) {
  auto listener = prom::loopback_listener::open(0);
  BOOST_TEST_REQUIRE(listener.has_value());
  BOOST_TEST(listener->port() != 0);
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  BOOST_TEST_REQUIRE(::getsockname(listener->fd(), reinterpret_cast<sockaddr*>(&bound), &len) == 0);
  BOOST_TEST(ntohl(bound.sin_addr.s_addr) == INADDR_LOOPBACK, "loopback only");

  const int stop = ::eventfd(0, EFD_CLOEXEC);
  BOOST_TEST_REQUIRE(stop >= 0);
  int scrapes = 0;
  replicant::result<void> served;
  std::thread server{[&] {
    served = prom::serve(*listener, stop, [&] {
      ++scrapes;
      return metrics_text();
    });
  }};
  const auto reply = fetch(listener->port(), "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  BOOST_TEST(reply.starts_with("HTTP/1.0 200 OK\r\n"), reply);
  BOOST_TEST(reply.ends_with("\r\n\r\nreplicant_up 1\n"), reply);
  BOOST_TEST(fetch(listener->port(), "GET /nope HTTP/1.1\r\n\r\n").starts_with("HTTP/1.0 404 "));
  BOOST_TEST(fetch(listener->port(), std::string(9000, 'x')).starts_with("HTTP/1.0 431 "));

  const std::uint64_t one = 1;
  BOOST_TEST_REQUIRE(::write(stop, &one, sizeof one) == static_cast<ssize_t>(sizeof one));
  server.join();
  BOOST_TEST(served.has_value());
  BOOST_TEST(scrapes == 1);
  ::close(stop);
}

BOOST_AUTO_TEST_CASE(a_port_in_use_is_an_os_error) {
  auto first = prom::loopback_listener::open(0);
  BOOST_TEST_REQUIRE(first.has_value());
  // SO_REUSEADDR does not let a second listener take a port that is listened on.
  const auto second = prom::loopback_listener::open(first->port());
  BOOST_TEST_REQUIRE(!second.has_value());
  BOOST_TEST((second.error() == std::errc::address_in_use));
}

BOOST_AUTO_TEST_SUITE_END()
