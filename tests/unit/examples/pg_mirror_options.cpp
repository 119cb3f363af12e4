// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// replicant-pg-mirror's command line (examples/pg_mirror/options.hpp): every option in both
// spellings, the checkpoint modes and their settings, and refusals that never repeat a value.
#include "../../../examples/pg_mirror/options.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

BOOST_AUTO_TEST_SUITE(examples_pg_mirror_options_tests)

namespace mirror = replicant::examples::pg_mirror;
using mirror::checkpoint_mode;

namespace {

auto parse(std::initializer_list<const char*> args) -> std::variant<mirror::options, mirror::refusal> {
  const std::vector<const char*> v(args);
  return mirror::parse_options(v);
}

// The options, checked to be accepted.
auto accepted(std::initializer_list<const char*> args) -> mirror::options {
  auto p = parse(args);
  BOOST_TEST_REQUIRE(std::holds_alternative<mirror::options>(p));
  return std::get<mirror::options>(p);
}

// The refusal's text, checked to be a refusal.
auto refused(std::initializer_list<const char*> args) -> std::string {
  auto p = parse(args);
  BOOST_TEST_REQUIRE(std::holds_alternative<mirror::refusal>(p));
  return std::string{std::get<mirror::refusal>(p).reason};
}

// The four required options, then @p extra.
auto with_required(std::initializer_list<const char*> extra) -> std::vector<const char*> {
  std::vector<const char*> v{"--source", "dbname=src", "--target", "dbname=dst", "--slot", "s1", "--publication", "p"};
  v.insert(v.end(), extra.begin(), extra.end());
  return v;
}

auto parse_with_required(std::initializer_list<const char*> extra) -> std::variant<mirror::options, mirror::refusal> {
  return mirror::parse_options(with_required(extra));
}

auto accepted_with_required(std::initializer_list<const char*> extra) -> mirror::options {
  auto p = parse_with_required(extra);
  BOOST_TEST_REQUIRE(std::holds_alternative<mirror::options>(p));
  return std::get<mirror::options>(p);
}

auto refused_with_required(std::initializer_list<const char*> extra) -> std::string {
  auto p = parse_with_required(extra);
  BOOST_TEST_REQUIRE(std::holds_alternative<mirror::refusal>(p));
  return std::string{std::get<mirror::refusal>(p).reason};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pg_mirror_options)

BOOST_AUTO_TEST_CASE(parses_the_required_options_in_both_spellings) {
  const auto o =
      accepted({"--source", "host=/tmp dbname=src", "--target=host=/tmp dbname=dst", "--slot=m_1", "--publication",
                "pub_a", "--publication=PubB", "--publication", "pub_a", "--go-forward-only"});
  BOOST_TEST(o.dsn == "host=/tmp dbname=src", "the source is the replication connection");
  BOOST_TEST(o.target == "host=/tmp dbname=dst", "a value after '=' keeps its own '='");
  BOOST_TEST(o.slot == "m_1");
  BOOST_TEST(o.publications == (std::vector<std::string>{"pub_a", "PubB"}), "duplicates dropped, case kept");
  BOOST_TEST(o.go_forward_only);
  BOOST_TEST(!o.help);
}

BOOST_AUTO_TEST_CASE(defaults_to_the_sink_mode_with_the_documented_settings) {
  const auto o = accepted({"--source", "a", "--target", "b", "--slot", "s", "--publication", "p"});
  BOOST_TEST((o.checkpoint == checkpoint_mode::sink));
  BOOST_TEST(!o.go_forward_only);
  BOOST_TEST(o.batch_size == 100U);
  BOOST_TEST(o.batch_delay.count() == 1000);
  BOOST_TEST(o.store_retries == 5U);
  BOOST_TEST(o.store_backoff.count() == 1000);
}

BOOST_AUTO_TEST_CASE(parses_every_checkpoint_mode) {
  const auto mode_of = [](const char* name) {
    auto p = mirror::parse_options(with_required({"--checkpoint", name}));
    BOOST_TEST_REQUIRE(std::holds_alternative<mirror::options>(p), name);
    return std::get<mirror::options>(p).checkpoint;
  };
  BOOST_TEST((mode_of("sink") == checkpoint_mode::sink));
  BOOST_TEST((mode_of("batches") == checkpoint_mode::batches));
  BOOST_TEST((mode_of("lib") == checkpoint_mode::lib));
  BOOST_TEST((mode_of("lib-batched") == checkpoint_mode::lib_batched));
  BOOST_TEST((mode_of("deferred") == checkpoint_mode::deferred));
  for (auto m : {checkpoint_mode::sink, checkpoint_mode::batches, checkpoint_mode::lib, checkpoint_mode::lib_batched,
                 checkpoint_mode::deferred}) {
    const std::string name{mirror::to_string(m)};
    BOOST_TEST((mode_of(name.c_str()) == m), name);
  }
  BOOST_TEST(!mirror::is_lib_owned(checkpoint_mode::sink));
  BOOST_TEST(!mirror::is_lib_owned(checkpoint_mode::batches));
  BOOST_TEST(mirror::is_lib_owned(checkpoint_mode::lib));
  BOOST_TEST(mirror::is_lib_owned(checkpoint_mode::lib_batched));
  BOOST_TEST(!mirror::is_batched(checkpoint_mode::sink));
  BOOST_TEST(mirror::is_batched(checkpoint_mode::batches));
  BOOST_TEST(!mirror::is_batched(checkpoint_mode::lib));
  BOOST_TEST(mirror::is_batched(checkpoint_mode::lib_batched));
}

BOOST_AUTO_TEST_CASE(parses_batch_and_store_settings_in_any_order) {
  auto p = parse_with_required({"--batch-size", "50", "--batch-delay-ms=20", "--checkpoint=batches"});
  BOOST_TEST_REQUIRE(std::holds_alternative<mirror::options>(p));
  const auto& b = std::get<mirror::options>(p);
  BOOST_TEST(b.batch_size == 50U);
  BOOST_TEST(b.batch_delay.count() == 20);

  p = parse_with_required({"--store-retries=0", "--checkpoint", "lib-batched", "--store-backoff-ms", "0",
                           "--batch-size", "1000000", "--batch-delay-ms", "3600000"});
  BOOST_TEST_REQUIRE(std::holds_alternative<mirror::options>(p));
  const auto& l = std::get<mirror::options>(p);
  BOOST_TEST((l.checkpoint == checkpoint_mode::lib_batched));
  BOOST_TEST(l.store_retries == 0U, "no retry at all is allowed");
  BOOST_TEST(l.store_backoff.count() == 0);
  BOOST_TEST(l.batch_size == 1000000U);
  BOOST_TEST(l.batch_delay.count() == 3600000);

  p = parse_with_required({"--checkpoint", "lib", "--store-retries", "2", "--store-backoff-ms", "50"});
  BOOST_TEST_REQUIRE(std::holds_alternative<mirror::options>(p));
  BOOST_TEST(std::get<mirror::options>(p).store_retries == 2U);
  BOOST_TEST(std::get<mirror::options>(p).store_backoff.count() == 50);
}

BOOST_AUTO_TEST_CASE(refuses_settings_the_mode_would_ignore) {
  // Batch settings need a batching mode, store settings a library-owned checkpoint.
  for (const char* mode : {"sink", "lib"}) {
    BOOST_TEST(refused_with_required({"--checkpoint", mode, "--batch-size", "5"}).find("--batch-size") !=
               std::string::npos);
    BOOST_TEST(refused_with_required({"--batch-delay-ms", "5", "--checkpoint", mode}).find("batches and lib-batched") !=
               std::string::npos);
  }
  BOOST_TEST(refused_with_required({"--batch-size", "5"}).find("--batch-size") != std::string::npos,
             "the default mode does not batch");
  for (const char* mode : {"sink", "batches"}) {
    BOOST_TEST(refused_with_required({"--checkpoint", mode, "--store-retries", "1"}).find("--store-retries") !=
               std::string::npos);
    BOOST_TEST(refused_with_required({"--store-backoff-ms", "1", "--checkpoint", mode}).find("lib and lib-batched") !=
               std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(parses_the_deferred_settings_and_the_test_option) {
  auto o = accepted_with_required({"--checkpoint", "deferred"});
  BOOST_TEST(o.max_unconfirmed == 100U);
  BOOST_TEST(o.confirm_timeout.count() == 30000);
  BOOST_TEST(!o.test_confirmations);
  BOOST_TEST(!mirror::is_lib_owned(checkpoint_mode::deferred));
  BOOST_TEST(!mirror::is_batched(checkpoint_mode::deferred));
  o = accepted_with_required({"--max-unconfirmed=7", "--confirm-timeout-ms", "250", "--checkpoint", "deferred"});
  BOOST_TEST(o.max_unconfirmed == 7U);
  BOOST_TEST(o.confirm_timeout.count() == 250);
  using kind = mirror::confirmation_hook::kind;
  const auto hook_of = [](const char* v) {
    return accepted_with_required({"--checkpoint", "deferred", "--test-confirmations", v}).test_confirmations;
  };
  BOOST_TEST((hook_of("swap-pairs").what == kind::swap_pairs));
  BOOST_TEST((hook_of("drop:12").what == kind::drop));
  BOOST_TEST(hook_of("drop:12").nth == 12U);
  BOOST_TEST((hook_of("fail:3").what == kind::fail_after_next));
  BOOST_TEST(hook_of("fail:3").nth == 3U);
  for (const char* bad : {"drop", "drop:0", "drop:x", "fail:", "swap", "swap-pairs:2", "lose:4"}) {
    BOOST_TEST(refused_with_required({"--checkpoint", "deferred", "--test-confirmations", bad}) ==
                   "--test-confirmations needs swap-pairs, drop:N or fail:N",
               bad);
  }
  BOOST_TEST(refused_with_required({"--checkpoint", "deferred", "--max-unconfirmed", "0"}).find("1 to 1000000") !=
             std::string::npos);
  BOOST_TEST(
      refused_with_required({"--checkpoint", "deferred", "--confirm-timeout-ms", "0"}).find("--confirm-timeout-ms") !=
      std::string::npos);
  // The deferred settings need the deferred mode, whatever the order.
  for (const char* mode : {"sink", "batches", "lib", "lib-batched"}) {
    for (const char* option : {"--max-unconfirmed", "--confirm-timeout-ms", "--test-confirmations"}) {
      const char* value = std::string_view{option} == "--test-confirmations" ? "swap-pairs" : "5";
      BOOST_TEST(refused_with_required({option, value, "--checkpoint", mode}).find("--checkpoint deferred only") !=
                     std::string::npos,
                 mode << " " << option);
    }
  }
  BOOST_TEST(refused_with_required({"--checkpoint", "deferred", "--batch-size", "5"}).find("--batch-size") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_snapshot_start_needs_the_sink_mode_and_no_go_forward) {
  const auto p = parse_with_required({"--snapshot"});
  BOOST_TEST_REQUIRE(std::holds_alternative<mirror::options>(p));
  BOOST_TEST(std::get<mirror::options>(p).snapshot);
  for (const char* mode : {"batches", "lib", "lib-batched"}) {
    BOOST_TEST(refused_with_required({"--snapshot", "--checkpoint", mode}) ==
               "--snapshot applies to --checkpoint sink only");
  }
  BOOST_TEST(refused_with_required({"--go-forward-only", "--snapshot"}) ==
             "--snapshot and --go-forward-only exclude each other");
  BOOST_TEST(refused_with_required({"--snapshot=yes"}) == "--snapshot takes no value");
}

BOOST_AUTO_TEST_CASE(refuses_bad_values_without_repeating_them) {
  BOOST_TEST(refused_with_required({"--checkpoint", "exactly-once-q7"}).find("sink, batches, lib, lib-batched") !=
             std::string::npos);
  BOOST_TEST(refused_with_required({"--checkpoint", "exactly-once-q7"}).find("q7") == std::string::npos);
  BOOST_TEST(refused_with_required({"--checkpoint"}).find("--checkpoint") != std::string::npos);
  BOOST_TEST(refused_with_required({"--checkpoint", "Lib"}).find("--checkpoint") != std::string::npos,
             "mode names are case-sensitive");
  for (const char* bad : {"0", "1000001", "-1", "12x", "", " 5"}) {
    BOOST_TEST(refused_with_required({"--checkpoint", "batches", "--batch-size", bad}).find("1 to 1000000") !=
                   std::string::npos,
               bad);
  }
  BOOST_TEST(refused_with_required({"--checkpoint", "batches", "--batch-delay-ms", "0"}).find("--batch-delay-ms") !=
             std::string::npos);
  BOOST_TEST(
      refused_with_required({"--checkpoint", "batches", "--batch-delay-ms", "3600001"}).find("--batch-delay-ms") !=
      std::string::npos);
  BOOST_TEST(refused_with_required({"--checkpoint", "lib", "--store-retries", "1000001"}).find("--store-retries") !=
             std::string::npos);
  BOOST_TEST(refused_with_required({"--checkpoint", "lib", "--store-backoff-ms", "soon"}).find("--store-backoff-ms") !=
             std::string::npos);
  BOOST_TEST(refused_with_required({"--checkpoint", "lib", "--store-retries"}).find("--store-retries") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(refuses_malformed_names_and_missing_options) {
  const auto slot = refused({"--source", "a", "--target", "b", "--slot", "Bad-Slot-q1", "--publication", "p"});
  BOOST_TEST(slot.find("--slot") != std::string::npos);
  BOOST_TEST(slot.find("q1") == std::string::npos);
  BOOST_TEST(refused({"--source", "a", "--target", "b", "--slot", "s", "--publication", "p'q2"}).find("q2") ==
             std::string::npos);
  BOOST_TEST(refused({"--target", "b", "--slot", "s", "--publication", "p"}).find("--source is required") !=
             std::string::npos);
  BOOST_TEST(refused({"--source", "", "--target", "b", "--slot", "s", "--publication", "p"}).find("--source") !=
             std::string::npos);
  BOOST_TEST(refused({"--source", "a", "--target", "b", "--publication", "p"}).find("--slot is required") !=
             std::string::npos);
  BOOST_TEST(refused({"--source", "a", "--target", "b", "--slot", "s"}).find("--publication") != std::string::npos);
  // An unknown option or a stray value is refused without being repeated (it may be a secret).
  const auto stray = refused_with_required({"password=hunter2"});
  BOOST_TEST(stray.find("unknown option") != std::string::npos);
  BOOST_TEST(stray.find("hunter2") == std::string::npos);
  BOOST_TEST(refused_with_required({"--go-forward-only=yes"}) == "--go-forward-only takes no value");
}

BOOST_AUTO_TEST_CASE(help_needs_nothing_else_and_names_every_option) {
  const auto o = accepted({"--help"});
  BOOST_TEST(o.help);
  BOOST_TEST(accepted({"-h", "--checkpoint", "lib"}).help);
  for (std::string_view name :
       {"--source", "--target", "--slot", "--publication", "--go-forward-only", "--snapshot", "--checkpoint",
        "--batch-size", "--batch-delay-ms", "--store-retries", "--store-backoff-ms", "--max-unconfirmed",
        "--confirm-timeout-ms", "sink", "batches", "lib-batched", "deferred", "replicant_checkpoints"}) {
    BOOST_TEST(mirror::usage().find(name) != std::string::npos, name);
  }
  BOOST_TEST(mirror::usage().find("--test-") == std::string::npos, "test-only options stay out of --help");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // examples_pg_mirror_options_tests
