// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_SYS_MICROSECONDS_HPP
#define REPLICANT_CORE_SYS_MICROSECONDS_HPP

/// @file
/// `replicant::sys_microseconds`, the time point of PostgreSQL's timestamps: the data model's
/// commit times and the replication framing's clocks are both written in it.

#include <chrono>

namespace replicant {

/**
 * A point in time with microsecond resolution on the system clock (the Unix epoch), which is
 * exactly the resolution of PostgreSQL's `timestamptz`.
 *
 * Named like the standard's `std::chrono::sys_seconds` and `sys_days`.
 */
using sys_microseconds = std::chrono::sys_time<std::chrono::microseconds>;

}  // namespace replicant

#endif  // REPLICANT_CORE_SYS_MICROSECONDS_HPP
