// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_WIRE_PLUGIN_REPLAY_HPP
#define REPLICANT_TESTS_SUPPORT_WIRE_PLUGIN_REPLAY_HPP

/// @file
/// Replays captured sessions through replicant::assembler and keeps what came out as plain data
/// (names, typed values rendered as text, LSNs), so that the golden tests of the translating
/// decoders can compare a wal2json or pglogical session with the pgoutput session of the same WAL
/// field by field, and print a readable difference when they disagree.

#include <replicant/assembler/assembler.hpp>
#include <replicant/model/value.hpp>
#include <replicant/wire/framing.hpp>

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace replicant::test {

/// One column of a row as delivered: its name, and `NULL`, `UNCHANGED` or the cast value's text.
struct field_record {
  std::string name;
  std::string shown;
  friend auto operator==(const field_record&, const field_record&) -> bool = default;
};

/// One change as delivered, with the relation description it was decoded with.
struct change_record {
  std::string op;
  std::string table;  // schema.table
  std::uint32_t relation_oid = 0;
  char identity = 0;
  std::vector<column_info> columns;
  char old_kind = 0;
  std::vector<field_record> record;
  std::vector<field_record> old;
  std::vector<std::string> unchanged;
  bool cascade = false;
  bool restart_identity = false;
  friend auto operator==(const change_record&, const change_record&) -> bool = default;
};

/// A logical message: transactional flag, LSN, prefix and content as text.
struct message_record {
  bool transactional = false;
  lsn at{};
  std::string prefix;
  std::string content;
  friend auto operator==(const message_record&, const message_record&) -> bool = default;
};

/// A committed transaction as delivered.
struct transaction_record {
  std::uint32_t xid = 0;
  lsn commit_lsn{};
  lsn end_lsn{};
  sys_microseconds commit_time{};
  std::vector<change_record> changes;
  std::vector<message_record> messages;
  std::string origin;  // the replication origin's name, empty when none
  lsn origin_lsn{};
};

/// Everything a session delivered, in order per kind.
struct replay_result {
  std::vector<transaction_record> transactions;
  std::vector<message_record> loose_messages;
  std::vector<std::string> schema_changes;  // "schema.table kind"
  std::vector<lsn> empty_commits;
};

inline auto operator<<(std::ostream& os, const field_record& f) -> std::ostream& {
  return os << f.name << '=' << f.shown;
}

/// Renders a value as the tests compare it: `NULL`, `UNCHANGED`, or the cast value's text (the
/// error's name when casting fails).
inline auto show(const field& f) -> std::string {
  if (f.is_unchanged()) return "UNCHANGED";
  if (f.is_null()) return "NULL";
  const auto v = f.value();
  if (!v) return "ERROR:" + v.error().message();
  return std::to_string(static_cast<int>(v->kind())) + ":" + to_string(*v);
}

/// The logical message @p m as plain data.
inline auto to_record(const logical_message& m) -> message_record {
  return {m.transactional, m.message_lsn, std::string{m.prefix},
          std::string{reinterpret_cast<const char*>(m.content.data()), m.content.size()}};
}

/// The committed transaction @p t as plain data: what a sink of the live tests keeps to compare
/// the deliveries of two decoders.
inline auto to_record(const transaction& t) -> transaction_record {
  transaction_record r{t.xid(), t.commit_lsn(), t.end_lsn(), t.commit_time(), {}, {}, {}, {}};
  for (const change& c : t.changes()) {
    change_record x;
    x.op = std::string{to_string(c.op())};
    x.table = c.relation().schema + "." + c.relation().table;
    x.relation_oid = c.relation().oid;
    x.identity = static_cast<char>(c.relation().identity);
    x.columns = c.relation().columns;
    x.old_kind = static_cast<char>(c.old_kind());
    for (const field f : c.record()) x.record.push_back({std::string{f.name()}, show(f)});
    for (const field f : c.old()) x.old.push_back({std::string{f.name()}, show(f)});
    for (const std::string_view name : c.unchanged()) x.unchanged.emplace_back(name);
    if (c.op() == change_op::truncate) {
      x.cascade = c.truncate_cascade();
      x.restart_identity = c.truncate_restart_identity();
    }
    r.changes.push_back(std::move(x));
  }
  for (const logical_message& m : t.messages()) r.messages.push_back(to_record(m));
  if (t.origin()) {
    r.origin = std::string{t.origin()->name};
    r.origin_lsn = t.origin()->origin_lsn;
  }
  return r;
}

/// The assembler handler that records everything into a replay_result.
class recording_handler {
 public:
  explicit recording_handler(replay_result& out) noexcept : out_(&out) {}

  auto operator()(transaction&& t) -> result<void> {
    out_->transactions.push_back(to_record(t));
    return {};
  }
  auto operator()(const logical_message& m) -> result<void> {
    out_->loose_messages.push_back(to_record(m));
    return {};
  }
  auto operator()(const schema_change& c) -> result<void> {
    out_->schema_changes.push_back(c.schema + "." + c.table + " " + std::string{to_string(c.kind)});
    return {};
  }
  auto operator()(const empty_commit& e) -> result<void> {
    out_->empty_commits.push_back(e.end_lsn);
    return {};
  }
  auto operator()(const prepared_event&) -> result<void> { return {}; }
  auto operator()(const rollback_prepared_event&) -> result<void> { return {}; }
  auto operator()(const stream_abort_event&) -> result<void> { return {}; }

 private:
  replay_result* out_;
};

/**
 * Calls @p push with the data of every XLogData among @p records (CopyData payloads as captured),
 * skipping keepalives; stops at the first error @p push returns.
 */
template <class Push>
auto for_each_xlog(const std::vector<std::vector<std::byte>>& records, Push&& push) -> result<void> {
  for (const auto& record : records) {
    auto parsed = parse_copy_data(record);
    if (!parsed) return unexpected(parsed.error());
    if (const auto* w = std::get_if<xlog_data>(&*parsed)) {
      if (auto r = push(w->data); !r) return r;
    }
  }
  return {};
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_WIRE_PLUGIN_REPLAY_HPP
