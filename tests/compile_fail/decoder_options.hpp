// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_COMPILE_FAIL_DECODER_OPTIONS_HPP
#define REPLICANT_TESTS_COMPILE_FAIL_DECODER_OPTIONS_HPP

// What the decoder_options_* cases share: a sink that fits every decoder, and a pipeline of a
// decoder made from its settings and options, as a user would make it. Each case asks a decoder's
// options for something its plugin cannot do.
#include <replicant/decoder/pglogical.hpp>
#include <replicant/decoder/wal2json.hpp>
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct plain_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
};

// Makes the pipeline (it does not run it).
template <class Decoder, class Settings, class Options>
auto makes_pipeline(const Settings& settings, const Options& options) -> bool {
  plain_sink sink;
  replicant::pipeline<Decoder, replicant::sink_owned_checkpoint, replicant::no_spill, plain_sink> p{sink, settings,
                                                                                                    options};
  return !p.last_halt().has_value();
}

inline auto wal2json_tables() -> replicant::wal2json_options { return {.tables = {{"public", "orders"}}}; }
inline auto pglogical_sets() -> replicant::pglogical_options { return {.replication_sets = {"default"}}; }

}  // namespace compile_fail

#endif  // REPLICANT_TESTS_COMPILE_FAIL_DECODER_OPTIONS_HPP
