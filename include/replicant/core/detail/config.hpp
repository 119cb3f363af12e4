// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_DETAIL_CONFIG_HPP
#define REPLICANT_CORE_DETAIL_CONFIG_HPP

// Library-wide configuration macros. Private: users should not rely on anything here.

// Development checks for programmer errors (never for wire data, which is untrusted input and is
// validated with a result instead). Active in debug builds only, like simdjson's development checks.
#if !defined(NDEBUG)
#include <cstdio>
#include <cstdlib>
#define REPLICANT_ASSERT(cond)                                                                      \
  do {                                                                                              \
    if (!(cond)) {                                                                                  \
      std::fprintf(stderr, "replicant: assertion failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                                 \
    }                                                                                               \
  } while (false)
#else
#define REPLICANT_ASSERT(cond) static_cast<void>(0)
#endif

// Marks a definition that is compiled once in the separately compiled mode: `inline` by default
// (header-only, every unit may hold the definition), nothing with REPLICANT_SEPARATE_COMPILATION
// (the one unit that includes <replicant/src.hpp> holds it, the others only its declaration), as
// Beast's BOOST_BEAST_DECL. Only non-template functions that no template or constexpr context of
// another header needs may carry it.
#if defined(REPLICANT_SEPARATE_COMPILATION)
#define REPLICANT_DECL
#else
#define REPLICANT_DECL inline
#endif

#endif  // REPLICANT_CORE_DETAIL_CONFIG_HPP
