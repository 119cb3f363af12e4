// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_BENCHMARKS_COMMON_SERVER_HPP
#define REPLICANT_BENCHMARKS_COMMON_SERVER_HPP

// Which PostgreSQL a benchmark runs against, and what it does when there is none: the test
// harness's throwaway server, from the environment as the tests choose it, so that a smoke run
// without a server skips like a live test does (and fails where every part is required, in CI).

#include "program.hpp"
#include "support/common/required.hpp"
#include "support/server/pg_cluster.hpp"

#include <cstdio>
#include <cstdlib>

namespace replicant::bench {

/// The throwaway server's options: REPLICANT_PG_MAJOR or REPLICANT_PG_BINDIR when either is set,
/// else the provisioning cache's PostgreSQL @p default_major (each benchmark says why its own).
inline auto server_options(const char* default_major) -> test::pg_cluster_options {
  if (std::getenv("REPLICANT_PG_MAJOR") == nullptr && std::getenv("REPLICANT_PG_BINDIR") == nullptr) {
    ::setenv("REPLICANT_PG_MAJOR", default_major, 1);
  }
  return test::pg_cluster_options::from_environment();
}

/// Says on stderr, after @p name, that @p missing (a server, a peer tool) is missing. @return the
/// exit status: exit_skipped, or 1 where every part is required.
inline auto missing_part(const char* name, const char* missing) -> int {
  std::fprintf(stderr, "%s: %s\n", name, missing);
  return test::every_part_required() ? 1 : exit_skipped;
}

/// What missing_part() says of the server's binaries.
inline constexpr const char* no_server_binaries =
    "no PostgreSQL server binaries (set REPLICANT_PG_BINDIR or run tools/provision)";

}  // namespace replicant::bench

#endif  // REPLICANT_BENCHMARKS_COMMON_SERVER_HPP
