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
/// must not meet in one program. What is compiled here: the code that depends on no type of the
/// program (docs/performance.md, "Compile cost"):
///
/// - core/: the error categories, the quoting of names, the description of halts;
/// - model/: the casts from a column's wire form to a value with their type tables, a value's
///   copies, comparisons and renderings, the schema change classification, the read-back of a
///   spilled change;
/// - wire/: the standby status update's parser;
/// - pq/: connecting, commands, the copy reader, the replication stream;
/// - decoder/: the pgoutput wire reader and plugin policy, with the message variant they build;
/// - spill/: the disk spill's files and private directory;
/// - checkpoint/: the file and the PostgreSQL checkpoint stores;
/// - snapshot/: the snapshot readers but for their templates, the incremental reader's thread, the
///   reconciler, the catalog listing, the COPY text scanner;
/// - pipeline/: the libpq models of the server seams and the publication checks.
///
/// Without the macro this header only repeats inline definitions, and compiles to nothing.

#include <replicant/checkpoint/src.hpp>
#include <replicant/core/src.hpp>
#include <replicant/decoder/src.hpp>
#include <replicant/model/src.hpp>
#include <replicant/pipeline/src.hpp>
#include <replicant/pq/src.hpp>
#include <replicant/snapshot/src.hpp>
#include <replicant/spill/src.hpp>
#include <replicant/wire/src.hpp>

#endif  // REPLICANT_SRC_HPP
