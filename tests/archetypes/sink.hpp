// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_ARCHETYPES_SINK_HPP
#define REPLICANT_TESTS_ARCHETYPES_SINK_HPP

// The minimal sink: exactly the members replicant::sink requires and nothing else, so that code
// instantiated with it proves it needs nothing more (Asio's archetypes).

#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/transaction_fwd.hpp>
#include <replicant/sink/concepts.hpp>

#include <optional>

namespace archetypes {

class sink {
 public:
  sink() = delete;  // a sink need not be default-constructible
  explicit sink(int /*tag*/) {}
  sink(const sink&) = delete;  // nor copyable
  sink(sink&&) = delete;       // nor movable
  auto operator=(const sink&) -> sink& = delete;
  auto operator=(sink&&) -> sink& = delete;
  ~sink() = default;

  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& /*txn*/) -> replicant::result<replicant::lsn> {
    return replicant::lsn{};
  }
};

}  // namespace archetypes

#endif  // REPLICANT_TESTS_ARCHETYPES_SINK_HPP
