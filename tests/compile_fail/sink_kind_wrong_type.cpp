// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A sink declares its kind with the enum, not with something that merely converts.
// expect: replicant: Sink::kind must be declared `static constexpr replicant::sink_kind kind = \.\.\.;`
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
#ifdef REPLICANT_COMPILE_FAIL
  static constexpr int kind = 1;
#else
  static constexpr replicant::sink_kind kind = replicant::sink_kind::append_log;
#endif
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
