// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_SERVER_PQ_SESSION_HPP
#define REPLICANT_TESTS_SUPPORT_SERVER_PQ_SESSION_HPP

/// @file
/// A session of the library's own libpq layer (replicant::pq::connection) for the live tests that
/// drive it directly, where a connection that cannot be made is a failed case, not a result to
/// check. The harness's clients of the server (pg_connection, support/server/pg_cluster.hpp) stay
/// apart from the library under test. Boost.Test only: include it after the test module's
/// `<boost/test/unit_test.hpp>`.

#include <boost/test/unit_test.hpp>

#include <replicant/pq/connection.hpp>

#include <string>
#include <utility>

namespace replicant::test {

/// A connection to @p dsn as a @p kind session, made by pq::connection::open(). A connection that
/// cannot be made fails the test case, naming the library's (value-free) error.
[[nodiscard]] inline auto open_session(const std::string& dsn, pq::session_kind kind) -> pq::connection {
  auto c = pq::connection::open(dsn, kind);
  if (!c) BOOST_FAIL("connect: " << c.error().message());
  return std::move(*c);
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_SERVER_PQ_SESSION_HPP
