// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Only pgoutput's slots are made failover slots by the pipeline: `failover` in a pglogical
// pipeline's options refuses any value at compile time.
// expect: replicant: pipeline_options_for<Decoder>::failover: this Decoder
#include "decoder_options.hpp"

namespace compile_fail {

inline auto make() -> bool {
  replicant::pipeline_options_for<replicant::pglogical_decoder> o;
  o.slot = "orders";
  o.go_forward_only = true;
#ifdef REPLICANT_COMPILE_FAIL
  o.failover = true;
#endif
  return makes_pipeline<replicant::pglogical_decoder>(pglogical_sets(), o);
}

}  // namespace compile_fail
