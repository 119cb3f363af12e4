// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Only pgoutput streams in-progress transactions, so only pgoutput_options has `streaming` (nor has
// wal2json_options two_phase, origin, binary, protocol_version or publications): asking wal2json for
// it does not compile, because there is nothing to set.
// expect: no member named.*streaming
#include "decoder_options.hpp"

namespace compile_fail {

inline auto make() -> bool {
  replicant::wal2json_options w = wal2json_tables();
#ifdef REPLICANT_COMPILE_FAIL
  w.streaming = true;
#endif
  return makes_pipeline<replicant::wal2json_decoder>(
      w, replicant::pipeline_options{.slot = "orders", .start = replicant::start::go_forward{}});
}

}  // namespace compile_fail
