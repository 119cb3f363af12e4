// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_RESULT_HPP
#define REPLICANT_RESULT_HPP

/// @file
/// replicant::result<T>: a value or a std::error_code, the return type of everything on the hot path
/// that can fail on untrusted input (decoding, parsing) and of the sink callbacks.

#include <replicant/detail/config.hpp>

#include <system_error>

#if REPLICANT_HAS_STD_EXPECTED
#include <expected>
#else
#include <replicant/detail/expected.hpp>
#endif

namespace replicant {

#if REPLICANT_HAS_STD_EXPECTED
/**
 * A value of type `T`, or the `std::error_code` saying why there is none.
 *
 * With a C++23 standard library this *is* `std::expected<T, std::error_code>`; under C++20 it is a
 * small in-house type that offers only the subset replicant uses (`has_value`, `operator bool`,
 * `value`, `error`, `operator*`, `operator->`, `value_or`), so code written against one compiles
 * against the other. The error never carries a row value (see @ref replicant::errc).
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
using result = std::expected<T, std::error_code>;

/// Builds the error alternative of a result: `return replicant::unexpected(errc::decode_failure);`.
using std::unexpected;
#else
template <class T>
using result = detail::expected<T, std::error_code>;
using detail::unexpected;
#endif

/// Shorthand for a failed result holding @p code: `return replicant::fail(errc::decode_failure);`.
template <class Code>
  requires std::is_error_code_enum_v<Code>
[[nodiscard]] inline auto fail(Code code) -> unexpected<std::error_code> {
  return unexpected<std::error_code>(make_error_code(code));
}

}  // namespace replicant

#endif  // REPLICANT_RESULT_HPP
