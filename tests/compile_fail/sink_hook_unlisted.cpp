// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A sink that lists its hooks lists all of them: a hook member the list leaves out is an error.
// expect: replicant: Sink::hooks and the sink's members disagree on handle_message: list hook::message exactly when the sink has a member of that name \(misspelled\?\)
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
#ifdef REPLICANT_COMPILE_FAIL
  static constexpr replicant::hook hooks = replicant::hook::schema_change;
#else
  static constexpr replicant::hook hooks = replicant::hook::schema_change | replicant::hook::message;
#endif
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
  auto handle_schema_change(const replicant::schema_change&) -> replicant::result<void> { return {}; }
  auto handle_message(const replicant::logical_message&, const replicant::message_context&) -> replicant::result<void> {
    return {};
  }
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
