// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A sink without handle_transaction is reported by name by the sink checklist.
// expect: replicant: Sink must provide `result<lsn> handle_transaction\(const transaction&\)` \(called once per committed transaction\)
#include <replicant/pipeline/sink_for.hpp>

#include <optional>

namespace {

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
#ifndef REPLICANT_COMPILE_FAIL
  auto handle_transaction(const replicant::transaction&) -> replicant::result<replicant::lsn> {
    return replicant::lsn{};
  }
#endif
};

}  // namespace

static_assert(replicant::detail::check_sink<my_sink>());
