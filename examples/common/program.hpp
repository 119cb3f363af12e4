// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_COMMON_PROGRAM_HPP
#define REPLICANT_EXAMPLES_COMMON_PROGRAM_HPP

/// @file
/// The frame every example program's main() shares: the command line, --help, the stop signal,
/// and what is left to say when memory runs out.

#include "cli.hpp"
#include "stop_signal.hpp"

#include <cstddef>
#include <cstdio>
#include <new>
#include <span>
#include <string>
#include <variant>

namespace replicant::examples {

/**
 * Runs an example program: parses the arguments after the program name with @p parse, which
 * returns `std::variant<Options, Refusal>` (`Options` has a `help` flag, `Refusal` a `reason`);
 * prints what @p usage returns for `--help`; installs the stop signal with @p on_stop; then returns
 * `run(options)`. A refusal is said through @p say and exits exit_refused; running out of memory
 * exits exit_failure.
 *
 * @par Example
 * @code
 * auto main(int argc, char** argv) -> int {
 *   return program_main(argc, argv, parse_options, usage, &stop_running_pipelines<my_pipeline>, say, run);
 * }
 * @endcode
 */
template <class Parse, class Run>
[[nodiscard]] auto program_main(int argc, char** argv, Parse parse, std::string (*usage)(), stop_signal::hook on_stop,
                                void (*say)(const std::string&), Run run) -> int {
  try {
    const auto parsed =
        parse(std::span<const char* const>{argv + 1, static_cast<std::size_t>(argc > 0 ? argc - 1 : 0)});
    if (const auto* r = std::get_if<1>(&parsed)) {
      say("refused to start: " + std::string{r->reason});
      return exit_refused;
    }
    const auto& o = std::get<0>(parsed);
    if (o.help) {
      const std::string text = usage();
      std::fwrite(text.data(), 1, text.size(), stdout);
      return exit_ok;
    }
    if (!stop_signal::install(on_stop)) {
      say("setting up signal handling failed");
      return exit_failure;
    }
    return run(o);
  } catch (const std::bad_alloc&) {
    say("out of memory");
    return exit_failure;
  }
}

}  // namespace replicant::examples

#endif  // REPLICANT_EXAMPLES_COMMON_PROGRAM_HPP
