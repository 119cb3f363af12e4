// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A malformed `_lsn` literal does not compile (docs/reference/lsn.md): the literal is consteval, and
// its parser answers malformed text with a throw, which is not a constant expression. That is the
// first error; the compiler shows the throw's line under it, whose string says why.
// expect: throw-expression.* is not a constant expression
#include <replicant/core/lsn.hpp>

namespace compile_fail {

using namespace replicant::literals;

#ifdef REPLICANT_COMPILE_FAIL
inline constexpr replicant::lsn start = "16/B374D84G"_lsn;  // G is no hex digit
#else
inline constexpr replicant::lsn start = "16/B374D848"_lsn;
#endif

}  // namespace compile_fail
