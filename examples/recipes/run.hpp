// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_RECIPES_RUN_HPP
#define REPLICANT_EXAMPLES_RECIPES_RUN_HPP

/// @file
/// What every recipe's main() ends with: run the pipeline until SIGINT or SIGTERM stops it
/// cleanly, and say why it halted if it did (value-free: the halt's reason and positions only).

#include "../common/running_pipeline.hpp"
#include "../common/stop_signal.hpp"

#include <replicant/core/halt.hpp>

#include <iostream>
#include <string_view>
#include <system_error>

namespace replicant::examples::recipes {

/**
 * Runs @p p until a stop signal (the caller installed stop_signal with
 * `stop_running_pipelines<Pipeline>`), then returns 0; after a halt, prints
 * `<program>: <the halt, described>` on standard error and returns 1.
 * @throws std::bad_alloc only.
 */
template <class Pipeline>
[[nodiscard]] auto run_until_stopped(Pipeline& p, std::string_view program) -> int {
  std::error_code ec;
  {
    const running_pipeline_scope<Pipeline> running{p};
    p.run(ec);
  }
  if (!ec) return 0;
  std::cerr << program << ": " << (p.last_halt() ? describe(*p.last_halt()) : ec.message()) << '\n';
  return 1;
}

}  // namespace replicant::examples::recipes

#endif  // REPLICANT_EXAMPLES_RECIPES_RUN_HPP
