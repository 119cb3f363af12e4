// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_VERSION_HPP
#define REPLICANT_CORE_VERSION_HPP

/// @file
/// The library version, as macros (for the preprocessor and for CMake, which reads this file).

/// Major version: bumped on an incompatible API change (after 1.0).
#define REPLICANT_VERSION_MAJOR 0
/// Minor version: bumped on new features (and, before 1.0, on API changes).
#define REPLICANT_VERSION_MINOR 1
/// Patch version: bumped on fixes.
#define REPLICANT_VERSION_PATCH 0

/// The version as one comparable integer: MAJOR * 10000 + MINOR * 100 + PATCH.
#define REPLICANT_VERSION (REPLICANT_VERSION_MAJOR * 10000 + REPLICANT_VERSION_MINOR * 100 + REPLICANT_VERSION_PATCH)

#endif  // REPLICANT_CORE_VERSION_HPP
