// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// An optional hook with the wrong signature is an error, not silently "absent".
// expect: replicant: Sink::handle_message must be `result<void> handle_message\(const logical_message&, const message_context&\)`
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
#ifdef REPLICANT_COMPILE_FAIL
  auto handle_message(const replicant::logical_message&) -> bool { return true; }
#else
  auto handle_message(const replicant::logical_message&, const replicant::message_context&) -> replicant::result<void> {
    return {};
  }
#endif
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
