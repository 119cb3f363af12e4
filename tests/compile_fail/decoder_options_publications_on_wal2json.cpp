// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The table set is named per decoder: wal2json's is wal2json_options::tables, so the
// publications of its pipeline's options refuse any value.
// expect: replicant: pipeline_options_for<Decoder>::publications: this Decoder names its table set in its own options
#include "decoder_options.hpp"

namespace compile_fail {

inline auto make() -> bool {
  replicant::pipeline_options_for<replicant::wal2json_decoder> o;
  o.slot = "orders";
  o.go_forward_only = true;
#ifdef REPLICANT_COMPILE_FAIL
  o.publications = {"orders_pub"};
#endif
  return makes_pipeline<replicant::wal2json_decoder>(wal2json_tables(), o);
}

}  // namespace compile_fail
