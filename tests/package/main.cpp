// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Built against the installed tree by the replicant.package.* tests: the umbrella header, the
// dependencies it pulls in (libpq, Boost, range-v3) and a few calls must all work from the package.
#include <replicant/replicant.hpp>

#include <cstdio>

auto main() -> int {
  using namespace replicant::literals;
  const auto parsed = replicant::parse_lsn("16/B374D848");
  if (!parsed || *parsed != "16/B374D848"_lsn) return 1;
  if (replicant::to_string(*parsed) != "16/B374D848") return 2;
  if (replicant::make_error_code(replicant::errc::decode_failure).category().name() != std::string_view{"replicant"})
    return 3;
  std::printf("replicant %d.%d.%d from the installed package\n", REPLICANT_VERSION_MAJOR, REPLICANT_VERSION_MINOR,
              REPLICANT_VERSION_PATCH);
  return 0;
}
