// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The point-in-time snapshot reads the tables through pgoutput's publications: with pglogical (or
// wal2json) a sink's handle_snapshot would never be called, so it is refused.
// expect: replicant: this Decoder has no snapshot start mode \(only pgoutput, through its publications\), so Sink::handle_snapshot would never be called: remove it, or use pgoutput_decoder
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
  auto handle_snapshot_complete(replicant::lsn) -> replicant::result<void> { return {}; }
#endif
};

}  // namespace compile_fail

template class replicant::pipeline<replicant::pglogical_decoder, replicant::sink_owned_checkpoint, replicant::no_spill,
                                   compile_fail::my_sink>;
