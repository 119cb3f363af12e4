// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A wal2json pipeline takes pipeline_options_for<wal2json_decoder>, not the full pipeline_options
// (in which streaming, failover and the rest could be set): the full set is refused, with the way
// to convert it explicitly.
// expect: replicant: pipeline: this Decoder cannot express every setting of pipeline_options
#include "decoder_options.hpp"

namespace compile_fail {

inline auto make(const replicant::pipeline_options& options) -> bool {
#ifdef REPLICANT_COMPILE_FAIL
  return makes_pipeline<replicant::wal2json_decoder>(wal2json_tables(), options);
#else
  return makes_pipeline<replicant::wal2json_decoder>(
      wal2json_tables(), replicant::pipeline_options_for<replicant::wal2json_decoder>{options});
#endif
}

}  // namespace compile_fail
