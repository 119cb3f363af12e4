// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The minimal sink shown in README.md, compiled so that the README cannot drift from the API.
#include <replicant/replicant.hpp>

#define BOOST_TEST_MODULE replicant.unit.readme_sink
#include <boost/test/unit_test.hpp>

#include <iostream>
#include <optional>

//[readme_sink
struct print_sink {
  std::optional<replicant::lsn> stored;  // a real sink keeps this in its own database

  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return stored; }

  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<replicant::lsn> {
    if (stored && txn.commit_lsn() <= *stored) return txn.commit_lsn();  // already applied
    for (const replicant::change& c : txn.changes()) {
      std::cout << replicant::to_string(c.op()) << ' ' << c.relation().table << '\n';
    }
    stored = txn.commit_lsn();  // store it atomically with the data
    return txn.commit_lsn();
  }
};

using print_pipeline =
    replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill, print_sink>;
//]

static_assert(replicant::sink<print_sink>);

BOOST_AUTO_TEST_CASE(the_readme_sink_refuses_bad_options_before_connecting) {
  print_sink sink;
  replicant::pipeline_options options;
  options.conninfo = "dbname=shop";
  options.slot = "Not A Slot";
  options.publications = {"shop_pub"};
  print_pipeline p{sink, options};
  std::error_code ec;
  p.run(ec);
  BOOST_TEST(ec == replicant::halt_reason::invalid_identifier);
}
