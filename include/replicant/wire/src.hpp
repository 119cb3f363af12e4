// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_WIRE_SRC_HPP
#define REPLICANT_WIRE_SRC_HPP

/// @file
/// The replication framing's separately compiled definitions: the standby status update's parser.
/// Included by <replicant/src.hpp>, which is what a program includes (see there).

#include <replicant/wire/framing.hpp>

// The bodies the header leaves out in this mode, after the declarations they define.
#include <replicant/wire/impl/framing.hpp>

#endif  // REPLICANT_WIRE_SRC_HPP
