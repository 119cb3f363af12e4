// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_COMMON_TEMP_DIR_HPP
#define REPLICANT_TESTS_SUPPORT_COMMON_TEMP_DIR_HPP

/// @file
/// A temporary directory that removes itself, and reading a whole file: what the tests that write
/// files (or run a program that does) need. Boost.Test only: include it after the test module's
/// `<boost/test/unit_test.hpp>`.

#include <boost/test/unit_test.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>

namespace replicant::test {

/**
 * A fresh directory under the system's temporary directory, removed with everything in it when
 * the object goes. Failing to create it fails the test case (BOOST_TEST_REQUIRE).
 *
 * @par Thread safety
 * Distinct objects: safe. Shared objects: unsafe.
 */
class temp_dir {
 public:
  /// Creates `<tmp>/<prefix>.XXXXXX`. @p prefix names the test, to tell leftovers apart.
  explicit temp_dir(std::string_view prefix) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (std::string{prefix} + ".XXXXXX")).string();
    BOOST_TEST_REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  temp_dir(const temp_dir&) = delete;
  auto operator=(const temp_dir&) -> temp_dir& = delete;
  ~temp_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

  /// The directory.
  [[nodiscard]] auto path() const -> const std::filesystem::path& { return path_; }

 private:
  std::filesystem::path path_;
};

/// The bytes of file @p p; empty when it cannot be read.
[[nodiscard]] inline auto read_file(const std::filesystem::path& p) -> std::string {
  std::ifstream in{p, std::ios::binary};
  return {std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_COMMON_TEMP_DIR_HPP
