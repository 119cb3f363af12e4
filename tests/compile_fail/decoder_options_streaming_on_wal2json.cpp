// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Only pgoutput streams in-progress transactions: in a wal2json pipeline's options `streaming`
// (like two_phase, origin, failover, binary and protocol_version) is a member that refuses any
// value, so asking wal2json for it does not compile, and says why.
// expect: replicant: pipeline_options_for<Decoder>::streaming: this Decoder cannot stream in-progress transactions
#include "decoder_options.hpp"

namespace compile_fail {

inline auto make() -> bool {
  replicant::pipeline_options_for<replicant::wal2json_decoder> o;
  o.slot = "orders";
  o.go_forward_only = true;
#ifdef REPLICANT_COMPILE_FAIL
  o.streaming = true;
#endif
  return makes_pipeline<replicant::wal2json_decoder>(wal2json_tables(), o);
}

}  // namespace compile_fail
