// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// pglogical's native protocol has no logical messages: a sink with handle_message on a pglogical
// pipeline would never be called, so it is refused rather than silently left waiting. (Asking for
// them in the options does not compile either: decoder_options_messages_on_pglogical.cpp.)
// expect: replicant: this Decoder cannot deliver logical messages \(pglogical has none\), so Sink::handle_message would never be called: remove it, or use pgoutput_decoder or wal2json_decoder
#include <replicant/decoder/pglogical.hpp>
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
#ifdef REPLICANT_COMPILE_FAIL
  auto handle_message(const replicant::logical_message&, const replicant::message_context&) -> replicant::result<void> {
    return {};
  }
#endif
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pglogical_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
