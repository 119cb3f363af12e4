// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// disk_spill's directory (replicant/spill/disk.hpp): row data goes only where no other user can
// reach it. A missing directory is made 0700; one that is group- or world-writable, or owned by
// another user, is refused by prepare() (the pipeline then halts spill_io_failed); the default is a
// fresh directory of the process's own, not a fixed shared path.
#include <replicant/spill/disk.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

BOOST_AUTO_TEST_SUITE(spill_disk_tests)

namespace pg = replicant::test;
using replicant::errc;

namespace {

const replicant::spill_context ctx{"orders_mirror", 1U << 20U};

auto mode_of(const std::filesystem::path& p) -> unsigned {
  struct stat st{};
  BOOST_TEST_REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777U;
}

auto prepare_in(const std::filesystem::path& dir) -> replicant::result<void> {
  replicant::disk_spill p{.dir = dir};
  return p.prepare(ctx);
}

auto refused(const replicant::result<void>& r) -> bool { return !r.has_value() && r.error() == errc::io_failed; }

}  // namespace

BOOST_AUTO_TEST_SUITE(disk_spill)

BOOST_AUTO_TEST_CASE(a_missing_directory_is_made_private) {
  pg::temp_dir dir{"replicant-spill-test"};
  const auto spill = dir.path() / "a" / "b" / "spill";
  BOOST_TEST_REQUIRE(prepare_in(spill).has_value());
  BOOST_TEST(std::filesystem::is_directory(spill));
  BOOST_TEST(mode_of(spill) == 0700U);
  // With a trailing separator it is still the last component that is made 0700.
  BOOST_TEST_REQUIRE(prepare_in(dir.path() / "c" / "").has_value());
  BOOST_TEST(mode_of(dir.path() / "c") == 0700U);
}

BOOST_AUTO_TEST_CASE(an_existing_private_directory_is_accepted) {
  pg::temp_dir dir{"replicant-spill-test"};  // mkdtemp: 0700, ours
  BOOST_TEST(prepare_in(dir.path()).has_value());
  std::filesystem::create_directory(dir.path() / "readable");
  ::chmod((dir.path() / "readable").c_str(), 0755);  // others may list it, not plant files in it
  BOOST_TEST(prepare_in(dir.path() / "readable").has_value());
}

BOOST_AUTO_TEST_CASE(a_world_or_group_writable_directory_is_refused) {
  pg::temp_dir dir{"replicant-spill-test"};
  for (const unsigned mode : {0777U, 0770U, 01777U, 0702U}) {
    BOOST_TEST_CONTEXT("mode " << std::oct << mode) {
      const auto hostile = dir.path() / ("hostile-" + std::to_string(mode));
      std::filesystem::create_directory(hostile);
      BOOST_TEST_REQUIRE(::chmod(hostile.c_str(), static_cast<mode_t>(mode)) == 0);
      BOOST_TEST(refused(prepare_in(hostile)));
    }
  }
  // The shared temporary directory itself, which is what the old default amounted to.
  BOOST_TEST(refused(prepare_in("/tmp")));
}

BOOST_AUTO_TEST_CASE(a_directory_owned_by_another_user_is_refused) {
  const passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr || ::geteuid() != 0) {
    BOOST_TEST_MESSAGE("skipped: needs root and a user 'nobody' to make a directory another user owns");
    return;
  }
  pg::temp_dir dir{"replicant-spill-test"};
  const auto theirs = dir.path() / "theirs";
  std::filesystem::create_directory(theirs);
  BOOST_TEST_REQUIRE(::chmod(theirs.c_str(), 0700) == 0);
  BOOST_TEST_REQUIRE(::chown(theirs.c_str(), nobody->pw_uid, nobody->pw_gid) == 0);
  BOOST_TEST(refused(prepare_in(theirs)));
  // A link to it from a directory of ours changes nothing: what counts is where the files land.
  std::filesystem::create_directory_symlink(theirs, dir.path() / "link");
  BOOST_TEST(refused(prepare_in(dir.path() / "link")));
}

BOOST_AUTO_TEST_CASE(a_regular_file_is_refused) {
  pg::temp_dir dir{"replicant-spill-test"};
  {
    std::ofstream{dir.path() / "file"} << "x";
  }
  BOOST_TEST(refused(prepare_in(dir.path() / "file")));
}

BOOST_AUTO_TEST_CASE(the_default_directory_is_private_to_the_process) {
  replicant::disk_spill p{};
  const auto where = p.directory();
  BOOST_TEST_REQUIRE(where.has_value());
  BOOST_TEST(where->parent_path() == std::filesystem::temp_directory_path());
  BOOST_TEST(where->filename().string().starts_with("replicant-spill-"));
  BOOST_TEST(where->filename().string() != "replicant-spill");  // an unpredictable name, not a fixed one
  BOOST_TEST(mode_of(*where) == 0700U);
  BOOST_TEST(p.prepare(ctx).has_value());
  // The same directory for every disk_spill of the process.
  BOOST_TEST(replicant::disk_spill{}.directory().value() == *where);
  // Its files are unlinked once open: nothing shows in it while a part lives.
  auto part = p.open(ctx);
  BOOST_TEST_REQUIRE(part.has_value());
  BOOST_TEST(std::filesystem::is_empty(*where));
}

BOOST_AUTO_TEST_CASE(a_default_directory_that_disappeared_is_made_anew) {
  replicant::disk_spill p{};
  const auto first = p.directory();
  BOOST_TEST_REQUIRE(first.has_value());
  std::filesystem::remove(*first);  // a cleaner of the temporary directory
  BOOST_TEST_REQUIRE(p.prepare(ctx).has_value());
  const auto second = p.directory();
  BOOST_TEST_REQUIRE(second.has_value());
  BOOST_TEST(std::filesystem::is_directory(*second));
  BOOST_TEST(mode_of(*second) == 0700U);
  BOOST_TEST(p.open(ctx).has_value());
}

BOOST_AUTO_TEST_CASE(a_spill_file_leaves_no_name_in_the_directory) {
  pg::temp_dir dir{"replicant-spill-test"};
  replicant::disk_spill p{.dir = dir.path()};
  BOOST_TEST_REQUIRE(p.prepare(ctx).has_value());
  auto part = p.open(ctx);
  BOOST_TEST_REQUIRE(part.has_value());
  BOOST_TEST(std::filesystem::is_empty(dir.path()), "unlinked as soon as it is open");
  const std::byte b[3]{std::byte{1}, std::byte{2}, std::byte{3}};
  BOOST_TEST((*part)->append(b).has_value());
  BOOST_TEST((*part)->flush().has_value());
  BOOST_TEST((*part)->size() == 3U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // spill_disk_tests
