// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_REPLICANT_HPP
#define REPLICANT_REPLICANT_HPP

/// @file
/// The umbrella header: everything a replicant user needs, in one include.

#include <replicant/version.hpp>
#include <replicant/error.hpp>
#include <replicant/result.hpp>
#include <replicant/lsn.hpp>
#include <replicant/identifier.hpp>
#include <replicant/halt.hpp>
#include <replicant/telemetry.hpp>
#include <replicant/concepts.hpp>

#endif  // REPLICANT_REPLICANT_HPP
