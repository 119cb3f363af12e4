// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// handle_schema_change in neither of its forms is an error naming both, not a hook silently never called.
// expect: replicant: Sink::handle_schema_change must be `result<void> handle_schema_change\(const schema_change&, const schema_change_context&\)` \(or the older `result<void> handle_schema_change\(const schema_change&\)`\)
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
#ifdef REPLICANT_COMPILE_FAIL
  auto handle_schema_change(const replicant::schema_change&, replicant::lsn) -> replicant::result<void> { return {}; }
#else
  auto handle_schema_change(const replicant::schema_change&, const replicant::schema_change_context&)
      -> replicant::result<void> {
    return {};
  }
#endif
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
