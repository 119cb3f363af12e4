// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_SRC_HPP
#define REPLICANT_CORE_SRC_HPP

/// @file
/// The vocabulary's separately compiled definitions: the error categories, the quoting of names and
/// the description of halts. Included by <replicant/src.hpp>, which is what a program includes
/// (see there).

#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>

// The bodies the headers leave out in this mode, after the declarations they define.
#include <replicant/core/impl/error.hpp>
#include <replicant/core/impl/halt.hpp>
#include <replicant/core/impl/identifier.hpp>

#endif  // REPLICANT_CORE_SRC_HPP
