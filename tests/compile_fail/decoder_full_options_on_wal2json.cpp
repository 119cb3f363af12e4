// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// A wal2json pipeline takes pipeline_options_for<wal2json_decoder>, not the full pipeline_options
// (in which streaming, failover and the rest could be set): the full set is refused, with the way
// to convert it explicitly.
// expect: replicant: pipeline: this Decoder cannot express every setting of pipeline_options
#include <replicant/decoder/wal2json.hpp>
#include <replicant/pipeline.hpp>

#include <optional>

namespace compile_fail {

struct my_sink {
  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return std::optional<replicant::lsn>{}; }
  auto handle_transaction(const replicant::transaction& t) -> replicant::result<replicant::lsn> {
    return t.commit_lsn();
  }
};

using pipeline_type =
    replicant::pipeline<replicant::wal2json_decoder, replicant::sink_owned_checkpoint, replicant::no_spill, my_sink>;

inline auto make(my_sink& sink, const replicant::pipeline_options& options) -> bool {
  const replicant::wal2json_options tables{.tables = {{"public", "orders"}}};
#ifdef REPLICANT_COMPILE_FAIL
  pipeline_type p{sink, tables, options};
#else
  pipeline_type p{sink, tables, replicant::pipeline_options_for<replicant::wal2json_decoder>{options}};
#endif
  return !p.last_halt().has_value();
}

}  // namespace compile_fail
