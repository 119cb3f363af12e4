// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SPILL_SRC_HPP
#define REPLICANT_SPILL_SRC_HPP

/// @file
/// The spill policies' separately compiled definitions: disk_spill's file operations and its
/// private directory. Included by <replicant/src.hpp>, which is what a program includes (see there).

#include <replicant/spill/detail/private_directory.hpp>
#include <replicant/spill/disk.hpp>

// The bodies the headers leave out in this mode, after the declarations they define.
#include <replicant/spill/detail/impl/private_directory.hpp>
#include <replicant/spill/impl/disk.hpp>

#endif  // REPLICANT_SPILL_SRC_HPP
