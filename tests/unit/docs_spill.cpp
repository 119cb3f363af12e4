// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// docs/spill.md, the spill policy family: its exemplar compiles (the snippets below, quoted there
// verbatim), and the settings table states what the two models do.
#include <replicant/pipeline.hpp>

#define BOOST_TEST_MODULE replicant.unit.docs_spill
#include <boost/test/unit_test.hpp>

#include "unit/docs_support.hpp"

#include <concepts>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <type_traits>

//[spill_sink
struct counting_sink {
  std::optional<replicant::lsn> stored;
  std::uint64_t rows = 0;

  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return stored; }

  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<replicant::lsn> {
    if (stored && txn.commit_lsn() <= *stored) return txn.commit_lsn();
    for (const replicant::change& c : txn.changes()) {  // one pass, during the call
      static_cast<void>(c);
      ++rows;
    }
    stored = txn.commit_lsn();
    return txn.commit_lsn();
  }
};
//]

//[spill_pipelines
using memory_only = replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint,
                                        replicant::no_spill, counting_sink>;

using spilling = replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint,
                                     replicant::disk_spill, counting_sink>;

auto make_spilling(counting_sink& sink, const replicant::pipeline_options& o) -> std::unique_ptr<spilling> {
  return std::make_unique<spilling>(
      sink, replicant::sink_owned_checkpoint{},
      replicant::disk_spill{.dir = "/var/lib/orders-cdc/spill", .max_spill_bytes = std::uint64_t{8} << 30U}, o);
}
//]

static_assert(replicant::sink<counting_sink>);
// "P{}: a pipeline constructor that is not given p makes P{}" — both models take the short form.
static_assert(std::constructible_from<memory_only, counting_sink&, replicant::pipeline_options>);
static_assert(std::constructible_from<spilling, counting_sink&, replicant::pipeline_options>);
static_assert(std::constructible_from<spilling, counting_sink&, replicant::sink_owned_checkpoint, replicant::disk_spill,
                                      replicant::pipeline_options>);
// "no_spill has no settings: an empty struct".
static_assert(std::is_empty_v<replicant::no_spill>);
static_assert(std::is_aggregate_v<replicant::no_spill> && std::is_aggregate_v<replicant::disk_spill>);

BOOST_AUTO_TEST_SUITE(docs_spill)

BOOST_AUTO_TEST_CASE(the_page_quotes_its_compiled_exemplar) {
  docs_support::require_quoted(docs_support::read_text(__FILE__), "docs/spill.md");
}

BOOST_AUTO_TEST_CASE(the_disk_spill_defaults_are_those_of_the_settings_table) {
  const replicant::disk_spill p{};
  BOOST_TEST(p.dir.empty());
  BOOST_TEST(p.max_spill_bytes == 0U);
  std::error_code ec;
  auto tmp = std::filesystem::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  BOOST_TEST(p.directory() == tmp / "replicant-spill");
  const replicant::disk_spill q{.dir = "/var/lib/orders-cdc/spill"};
  BOOST_TEST(q.directory() == std::filesystem::path{"/var/lib/orders-cdc/spill"});
}

BOOST_AUTO_TEST_CASE(the_exemplar_builds_a_pipeline_that_refuses_bad_options_before_spilling_anything) {
  counting_sink sink;
  replicant::pipeline_options o;
  o.conninfo = "dbname=shop";
  o.slot = "shop_spill";
  o.publications = {"shop_pub"};
  o.max_inflight_bytes = 0;  // a zero budget is refused before anything connects
  auto p = make_spilling(sink, o);
  std::error_code ec;
  p->run(ec);
  BOOST_TEST(ec == replicant::halt_reason::config_invalid);
  BOOST_TEST(!std::filesystem::exists("/var/lib/orders-cdc/spill"));
}

BOOST_AUTO_TEST_CASE(the_spill_settings_table_lists_every_member) {
  const auto page = docs_support::read_repository_file("docs/spill.md");
  for (const auto* member : {"dir", "max_spill_bytes", "directory()"}) {
    BOOST_TEST(docs_support::rows_naming(page, member).size() == 1U, member);
  }
}

BOOST_AUTO_TEST_SUITE_END()
