// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_RESULT_HPP
#define REPLICANT_CORE_RESULT_HPP

/// @file
/// replicant::result<T>: a value or a std::error_code, the return type of everything on the hot path
/// that can fail on untrusted input (decoding, parsing) and of the sink callbacks.

#include <replicant/core/detail/expected.hpp>

#include <system_error>

namespace replicant {

/**
 * A value of type `T`, or the `std::error_code` saying why there is none.
 *
 * It offers the subset of `std::expected` that replicant uses, with the same names and meanings
 * (`has_value`, `operator bool`, `value`, `error`, `operator*`, `operator->`, `value_or`). It is the
 * same type in every language mode, also where the standard library has `std::expected` (C++23):
 * translation units built as C++20 and as C++23 link into one program without two definitions of
 * one function. Build an error with replicant::fail or replicant::unexpected. The error never
 * carries a row value (see @ref replicant::errc).
 *
 * @par Example
 * @code
 * auto r = replicant::parse_lsn("16/B374D848");
 * if (!r) return r.error();
 * replicant::lsn at = *r;
 * @endcode
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
template <class T>
using result = detail::expected<T, std::error_code>;

/// Builds the error alternative of a result: `return replicant::unexpected(make_error_code(errc::decode_failure));`.
using detail::unexpected;

/// Shorthand for a failed result holding @p code: `return replicant::fail(errc::decode_failure);`.
template <class Code>
  requires std::is_error_code_enum_v<Code>
[[nodiscard]] inline auto fail(Code code) -> unexpected<std::error_code> {
  return unexpected<std::error_code>(make_error_code(code));
}

}  // namespace replicant

#endif  // REPLICANT_CORE_RESULT_HPP
