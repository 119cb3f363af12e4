// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Only pgoutput streams in-progress transactions: in a wal2json pipeline's options `streaming`
// (like two_phase, origin, failover, binary and protocol_version) is a member that refuses any
// value, so asking wal2json for it does not compile, and says why.
// expect: replicant: pipeline_options_for<Decoder>::streaming: this Decoder cannot stream in-progress transactions
#include <replicant/decoder/wal2json.hpp>
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
};

using pipeline_type =
    replicant::pipeline<replicant::wal2json_decoder, replicant::sink_owned_checkpoint, replicant::no_spill, my_sink>;

inline auto make(my_sink& sink) -> bool {
  replicant::pipeline_options_for<replicant::wal2json_decoder> o;
  o.slot = "orders";
  o.go_forward_only = true;
#ifdef REPLICANT_COMPILE_FAIL
  o.streaming = true;
#else
  static_cast<void>(o);
#endif
  pipeline_type p{sink, replicant::wal2json_options{.tables = {{"public", "orders"}}}, o};
  return !p.last_halt().has_value();
}

}  // namespace compile_fail
