// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A sink whose member is there but returns the wrong type is told so, through a whole pipeline, in
// the first error the compiler prints, and in that one only: not "Sink must provide ..." (which reads
// as if the member were missing), and no bare "static assertion failed" after it. Each case gives one
// member another return type: handle_transaction and checkpoint() (required under
// sink_owned_checkpoint) and handle_slot_origin (an optional hook).
// expect handle_transaction: replicant: Sink::handle_transaction has the wrong return type: sink_owned_checkpoint needs it to return `result<lsn>` \(the commit LSN it persisted\)
// expect checkpoint: replicant: Sink::checkpoint has the wrong return type: it must return `result<std::optional<lsn>>` \(the commit LSN it last persisted durably, or std::nullopt\)
// expect slot_origin: replicant: Sink::handle_slot_origin has the wrong return type: it must return `result<void>` \(an error vetoes the start position\)
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
#ifdef REPLICANT_COMPILE_FAIL_checkpoint
  // The position alone: the pipeline cannot tell "none yet" from a failure to read it.
  auto checkpoint() -> std::optional<replicant::lsn> { return std::nullopt; }
#else
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn> > { return std::optional<replicant::lsn>{}; }
#endif

#ifdef REPLICANT_COMPILE_FAIL_handle_transaction
  // What a first sink often returns: success, without the position it made durable.
  auto handle_transaction(const replicant::transaction&) -> replicant::result<void> { return {}; }
#else
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
#endif

#ifdef REPLICANT_COMPILE_FAIL_slot_origin
  auto handle_slot_origin(replicant::lsn, const replicant::slot_origin_context&) -> bool { return true; }
#else
  auto handle_slot_origin(replicant::lsn, const replicant::slot_origin_context&) -> replicant::result<void> {
    return {};
  }
#endif
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
