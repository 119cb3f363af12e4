// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The table set is named per decoder: pgoutput streams the publications of pgoutput_options,
// pglogical the replication sets of pglogical_options, wal2json the tables of wal2json_options.
// One decoder's settings given to a pipeline of another are refused, with the three names.
// expect: replicant: pipeline: the decoder settings given belong to another Decoder\. The table set is named per decoder: pgoutput_decoder streams the publications of pgoutput_options::publications, wal2json_decoder the tables of wal2json_options::tables, pglogical_decoder the replication sets of pglogical_options::replication_sets
#include <replicant/decoder/pglogical.hpp>
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
};

using pgoutput_pipeline =
    replicant::pipeline<replicant::pgoutput_decoder, replicant::sink_owned_checkpoint, replicant::no_spill, my_sink>;

inline auto make(my_sink& sink, const replicant::pipeline_options& options) -> bool {
  replicant::pglogical_options sets;
  sets.replication_sets = {"default"};
#ifdef REPLICANT_COMPILE_FAIL
  pgoutput_pipeline p{sink, sets, options};
#else
  static_cast<void>(sets);
  pgoutput_pipeline p{sink, replicant::pgoutput_options{.publications = {"orders_pub"}}, options};
#endif
  return !p.last_halt().has_value();
}

}  // namespace compile_fail
