// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A halt reason is not an error code: comparing the std::error_code of an operation (or of run(ec))
// with a halt_reason of the same name does not compile, rather than being silently false. The
// reason is read from the halt; the code to compare with is the errc.
// expect: (no match for .+operator==|invalid operands to binary expression).*std::error_code.*replicant::halt_reason
#include <replicant/core/halt.hpp>

#include <system_error>

namespace compile_fail {

auto failed_to_decode(std::error_code ec) -> bool;
auto halted_on_bad_input(const replicant::halt& h) -> bool;

auto failed_to_decode(std::error_code ec) -> bool {
#ifdef REPLICANT_COMPILE_FAIL
  return ec == replicant::halt_reason::decode_failure;
#else
  return ec == replicant::errc::decode_failure;
#endif
}

auto halted_on_bad_input(const replicant::halt& h) -> bool {
  return h.reason == replicant::halt_reason::decode_failure;
}

}  // namespace compile_fail
