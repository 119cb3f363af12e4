// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_COMMON_UNPRINTABLE_HPP
#define REPLICANT_TESTS_SUPPORT_COMMON_UNPRINTABLE_HPP

/// @file
/// The library's types (and the optionals of them) that BOOST_TEST compares without printing, as
/// they have no operator<<. Boost.Test wants this said once in a program at global scope, before the
/// first comparison: one header, rather than each test file's own list, keeps a program whose files
/// share a translation unit (tests/CMakeLists.txt) from saying it twice.

#include <replicant/core/lsn.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/model/tuple.hpp>
#include <replicant/model/type_widening.hpp>

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <optional>

BOOST_TEST_DONT_PRINT_LOG_VALUE(replicant::replica_identity)
BOOST_TEST_DONT_PRINT_LOG_VALUE(replicant::schema_change_kind)
BOOST_TEST_DONT_PRINT_LOG_VALUE(replicant::column_change_kind)
BOOST_TEST_DONT_PRINT_LOG_VALUE(replicant::column_change)
BOOST_TEST_DONT_PRINT_LOG_VALUE(replicant::column_kind)
BOOST_TEST_DONT_PRINT_LOG_VALUE(replicant::old_tuple_kind)
BOOST_TEST_DONT_PRINT_LOG_VALUE(std::optional<replicant::lsn>)
BOOST_TEST_DONT_PRINT_LOG_VALUE(std::optional<replicant::numeric_modifier>)
BOOST_TEST_DONT_PRINT_LOG_VALUE(std::optional<std::int32_t>)
BOOST_TEST_DONT_PRINT_LOG_VALUE(std::optional<std::uint32_t>)

#endif
