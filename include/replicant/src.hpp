// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_SRC_HPP
#define REPLICANT_SRC_HPP

/// @file
/// The separately compiled mode's one unit, as Boost.Beast's `<boost/beast/src.hpp>`.
///
/// replicant is header-only by default: every unit that includes a header parses, instantiates and
/// generates the library's code it uses. A program of many units can have the code that does not
/// depend on its own types compiled once instead:
///
/// - define `REPLICANT_SEPARATE_COMPILATION` for every unit of the program (the build system's
///   compile definitions, so that no unit is left out);
/// - include this header in exactly one `.cpp` of the program, and nothing else there.
///
/// The headers then declare what this unit defines. A unit with the macro and a unit without it
/// must not meet in one program. What is compiled here so far: the pgoutput reader's and plugin's bodies,
/// with the message variant they build, and the casts from a column's wire form to a value, with
/// their type tables (docs/performance.md, "Compile cost"). Without the macro this header only
/// repeats inline definitions, and compiles to nothing.

#include <replicant/decoder/src.hpp>
#include <replicant/model/src.hpp>

#endif  // REPLICANT_SRC_HPP
