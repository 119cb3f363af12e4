// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// pglogical's native protocol has no logical messages: `messages` in a pglogical pipeline's
// options refuses any value (wal2json's accepts it).
// expect: replicant: pipeline_options_for<Decoder>::messages: this Decoder cannot deliver logical
#include "decoder_options.hpp"

namespace compile_fail {

inline auto make() -> bool {
  replicant::pipeline_options_for<replicant::pglogical_decoder> o;
  o.slot = "orders";
  o.go_forward_only = true;
#ifdef REPLICANT_COMPILE_FAIL
  o.messages = true;
#endif
  return makes_pipeline<replicant::pglogical_decoder>(pglogical_sets(), o);
}

}  // namespace compile_fail
