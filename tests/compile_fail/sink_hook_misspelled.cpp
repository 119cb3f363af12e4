// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A sink that lists its hooks cannot misspell one: the listed hook with no member of its name is an
// error, where an unlisted misspelling would be a member the pipeline never calls.
// expect: replicant: Sink::hooks and the sink's members disagree on handle_schema_change: list hook::schema_change exactly when the sink has a member of that name \(misspelled\?\)
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
  static constexpr replicant::hook hooks = replicant::hook::schema_change;
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
#ifdef REPLICANT_COMPILE_FAIL
  auto handle_schema_chnage(const replicant::schema_change&) -> replicant::result<void> { return {}; }
#else
  auto handle_schema_change(const replicant::schema_change&) -> replicant::result<void> { return {}; }
#endif
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
