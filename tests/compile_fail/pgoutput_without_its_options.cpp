// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A pgoutput pipeline is given pgoutput's options (its publications above all): a pipeline made
// without them, whose default decoder would ask for no publication at all, does not compile.
// expect: replicant: pipeline: this Decoder is configured by its options \(pgoutput_options: the publications; wal2json_options: the tables; pglogical_options: the replication sets\): pass them, or the decoder, right after the sink
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
#ifdef REPLICANT_COMPILE_FAIL
  pgoutput_pipeline p{sink, options};
#else
  pgoutput_pipeline p{sink, replicant::pgoutput_options{.publications = {"orders_pub"}}, options};
#endif
  return !p.last_halt().has_value();
}

}  // namespace compile_fail
