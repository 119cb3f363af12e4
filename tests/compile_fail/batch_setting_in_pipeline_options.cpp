// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Batch bounds belong to a checkpoint policy (sink_owned_batches, or checkpoint_batching in
// lib_owned_checkpoint), never to the pipeline options, where they could not say which one they mean.
// expect: no member named.*batch
#include <replicant/pipeline.hpp>

namespace compile_fail {

inline auto options() -> replicant::pipeline_options {
  replicant::pipeline_options o;
#ifdef REPLICANT_COMPILE_FAIL
  o.batch = replicant::checkpoint_batching{};
#endif
  return o;
}

}  // namespace compile_fail
