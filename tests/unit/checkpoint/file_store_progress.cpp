// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The file checkpoint store as a progress store (the incremental snapshot under a library-owned
// checkpoint): round trips of any token, independence from the checkpoint, refusing files it did
// not write for this slot.
#include <replicant/checkpoint/file_store.hpp>

#include <boost/test/unit_test.hpp>

#include "support/common/temp_dir.hpp"

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

BOOST_AUTO_TEST_SUITE(checkpoint_file_store_progress_tests)

namespace fs = std::filesystem;
using replicant::errc;
using replicant::file_checkpoint_store;
using replicant::slot_name;
using replicant::test::read_file;
using replicant::test::temp_dir;

static_assert(replicant::progress_store<file_checkpoint_store>);

namespace {

auto slot(std::string_view name) -> slot_name { return slot_name::make(name).value(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(file_checkpoint_store_progress)

BOOST_AUTO_TEST_CASE(round_trips_any_token_beside_the_checkpoint) {
  const temp_dir dir{"file_store_progress"};
  file_checkpoint_store store{dir.path() / "orders.checkpoint"};
  const auto s = slot("orders_cdc");
  auto none = store.read_progress(s);
  BOOST_TEST_REQUIRE(none.has_value());
  BOOST_TEST(!none->has_value());

  const std::string token = std::string{"4:rbf11:T"} + "line\nbreak\\ 'quoted' \xC3\xA9";
  BOOST_TEST_REQUIRE(store.write_progress(s, token).has_value());
  BOOST_TEST_REQUIRE(store.write(s, replicant::lsn{0x10}).has_value());
  auto back = store.read_progress(s);
  BOOST_TEST_REQUIRE(back.has_value());
  BOOST_TEST_REQUIRE(back->has_value());
  BOOST_TEST(**back == token);
  BOOST_TEST(fs::exists(dir.path() / "orders.checkpoint.progress"));
  BOOST_TEST(!fs::exists(dir.path() / "orders.checkpoint.progress.tmp"));

  // A later write replaces it; the checkpoint is untouched.
  BOOST_TEST_REQUIRE(store.write_progress(s, "").has_value());
  back = store.read_progress(s);
  BOOST_TEST_REQUIRE(back.has_value());
  BOOST_TEST((*back == std::optional<std::string>{""}));
  auto at = store.read(s);
  BOOST_TEST_REQUIRE(at.has_value());
  BOOST_TEST((*at == std::optional<replicant::lsn>{replicant::lsn{0x10}}));
}

BOOST_AUTO_TEST_CASE(refuses_a_file_of_another_slot_or_shape) {
  const temp_dir dir{"file_store_progress"};
  file_checkpoint_store store{dir.path() / "c"};
  BOOST_TEST_REQUIRE(store.write_progress(slot("one"), "abc").has_value());
  const auto other = store.read_progress(slot("two"));
  BOOST_TEST_REQUIRE(!other.has_value());
  BOOST_TEST((other.error() == errc::store_mismatch));

  const std::string text = read_file(dir.path() / "c.progress");
  for (const std::string& bad : {text.substr(0, text.size() - 1), text + "x", std::string{"garbage\n"}}) {
    std::ofstream{dir.path() / "c.progress", std::ios::binary | std::ios::trunc} << bad;
    const auto r = store.read_progress(slot("one"));
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST((r.error() == errc::store_mismatch));
  }
}

BOOST_AUTO_TEST_CASE(a_refused_path_refuses_progress_too) {
  file_checkpoint_store store{""};
  BOOST_TEST((store.read_progress(slot("x")).error() == errc::invalid_options));
  BOOST_TEST((store.write_progress(slot("x"), "t").error() == errc::invalid_options));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // checkpoint_file_store_progress_tests
