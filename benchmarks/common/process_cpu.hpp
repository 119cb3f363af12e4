// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_BENCHMARKS_COMMON_PROCESS_CPU_HPP
#define REPLICANT_BENCHMARKS_COMMON_PROCESS_CPU_HPP

// CPU time of processes, from /proc: what the benchmarks charge to a server (its postmaster and
// every child: backends, walsenders, background workers) and to child processes they start.

#include <sys/types.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>

namespace replicant::bench {

/// CPU time (user + system, in clock ticks, all threads) of process @p pid, or nothing when it is
/// gone.
inline auto cpu_ticks(pid_t pid) -> std::optional<std::uint64_t> {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/stat"};
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // Fields after the command name, which is in parentheses and may hold spaces: state is field 3,
  // utime and stime are fields 14 and 15.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields{stat.substr(close + 2)};
  std::string field;
  std::uint64_t utime = 0;
  std::uint64_t stime = 0;
  for (int n = 3; n <= 15 && fields >> field; ++n) {
    if (n == 14) utime = std::stoull(field);
    if (n == 15) stime = std::stoull(field);
  }
  return utime + stime;
}

/// The CPU ticks of the postmaster @p postmaster and of each of its children, by process id.
inline auto server_cpu(pid_t postmaster) -> std::map<pid_t, std::uint64_t> {
  std::map<pid_t, std::uint64_t> out;
  for (const auto& entry : std::filesystem::directory_iterator{"/proc"}) {
    const auto name = entry.path().filename().string();
    pid_t pid = 0;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (ec != std::errc{} || end != name.data() + name.size()) continue;
    std::ifstream in{entry.path() / "stat"};
    std::string stat;
    if (!std::getline(in, stat)) continue;
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields{stat.substr(close + 2)};
    std::string state;
    pid_t parent = 0;
    fields >> state >> parent;
    if (pid != postmaster && parent != postmaster) continue;
    if (const auto t = cpu_ticks(pid)) out[pid] = *t;
  }
  return out;
}

/// Seconds of CPU the server spent between two samples of server_cpu(): per process alive at the
/// second, what it used since the first (or since it started). A process that ended in between is
/// not counted, so sample before what is measured ends.
inline auto cpu_seconds_between(const std::map<pid_t, std::uint64_t>& before,
                                const std::map<pid_t, std::uint64_t>& after) -> double {
  std::uint64_t ticks = 0;
  for (const auto& [pid, t] : after) {
    const auto b = before.find(pid);
    ticks += b != before.end() && b->second <= t ? t - b->second : t;
  }
  return static_cast<double>(ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace replicant::bench

#endif  // REPLICANT_BENCHMARKS_COMMON_PROCESS_CPU_HPP
