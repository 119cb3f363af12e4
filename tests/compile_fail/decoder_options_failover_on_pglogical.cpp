// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Only pgoutput's slots are made failover slots by the pipeline: `failover` in a pglogical
// pipeline's options refuses any value at compile time.
// expect: replicant: pipeline_options_for<Decoder>::failover: this Decoder
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

using pipeline_type =
    replicant::pipeline<replicant::pglogical_decoder, replicant::sink_owned_checkpoint, replicant::no_spill, my_sink>;

inline auto make(my_sink& sink) -> bool {
  replicant::pipeline_options_for<replicant::pglogical_decoder> o;
  o.slot = "orders";
  o.go_forward_only = true;
#ifdef REPLICANT_COMPILE_FAIL
  o.failover = true;
#else
  static_cast<void>(o);
#endif
  pipeline_type p{sink, replicant::pglogical_options{.replication_sets = {"default"}}, o};
  return !p.last_halt().has_value();
}

}  // namespace compile_fail
