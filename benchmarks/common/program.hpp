// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_BENCHMARKS_COMMON_PROGRAM_HPP
#define REPLICANT_BENCHMARKS_COMMON_PROGRAM_HPP

// What every benchmark program does the same way around its measurement: read counts from its
// command line, answer --help, refuse a command line it cannot read with its usage, and (those
// that talk to a server) turn an exception into a line on stderr and exit status 1, so that a
// smoke run fails readably.

#include <charconv>
#include <concepts>
#include <cstdio>
#include <exception>
#include <optional>
#include <string_view>
#include <system_error>

namespace replicant::bench {

/// Exit status of a run that lacks a server or a peer tool: ctest's SKIP_RETURN_CODE.
inline constexpr int exit_skipped = 77;

/// Reads @p text, a decimal count, into @p out; false (and @p out unchanged) for anything else,
/// and for 0 unless @p zero_ok.
template <std::unsigned_integral Count>
auto parse_count(std::string_view text, Count& out, bool zero_ok = false) -> bool {
  Count v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || (v == 0 && !zero_ok)) return false;
  out = v;
  return true;
}

/**
 * Reads a benchmark's command line into @p opt: `--help` alone prints @p usage, and a command line
 * that @p parse (`(int argc, char** argv, Options&) -> bool`) refuses prints it on stderr.
 * @return the exit status then (0 and 2), or nothing to go on.
 */
template <class Options, class Parse>
auto read_command_line(int argc, char** argv, const char* usage, Parse parse, Options& opt) -> std::optional<int> {
  if (argc == 2 && std::string_view{argv[1]} == "--help") {
    std::printf("%s", usage);
    return 0;
  }
  if (!parse(argc, argv, opt)) {
    std::fprintf(stderr, "%s", usage);
    return 2;
  }
  return std::nullopt;
}

/**
 * A benchmark's main(): read_command_line(), then the exit status is @p run's
 * (`(Options&) -> int`). An exception @p run lets out is printed after @p name (`bench-x: ...`)
 * and exits 1: the test harness's errors name the operation and the SQLSTATE, never a value.
 */
template <class Options, class Parse, class Run>
auto benchmark_main(int argc, char** argv, const char* name, const char* usage, Parse parse, Run run) -> int {
  Options opt;
  if (const auto status = read_command_line(argc, argv, usage, parse, opt)) return *status;
  try {
    return run(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace replicant::bench

#endif  // REPLICANT_BENCHMARKS_COMMON_PROGRAM_HPP
