// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Only pgoutput decodes two-phase transactions: a sink with handle_prepare on a wal2json pipeline
// would never be called, so it is refused. (Setting `two_phase` in its options does not compile
// either: see decoder_options_streaming_on_wal2json.cpp for the options' refusals.)
// expect: replicant: this Decoder cannot decode two-phase transactions \(only pgoutput can\), so Sink::handle_prepare would never be called: remove it, or use pgoutput_decoder
#include <replicant/decoder/wal2json.hpp>
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
#ifdef REPLICANT_COMPILE_FAIL
  auto handle_prepare(const replicant::prepared_event&) -> replicant::result<void> { return {}; }
#endif
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::wal2json_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
