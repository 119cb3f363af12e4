// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_IMPL_PGOUTPUT_READER_HPP
#define REPLICANT_DECODER_IMPL_PGOUTPUT_READER_HPP

// Out-of-line bodies of replicant::pgoutput_reader. Included at the
// bottom of <replicant/decoder/pgoutput_reader.hpp> (which it includes nothing of back). With
// REPLICANT_SEPARATE_COMPILATION only <replicant/decoder/src.hpp> includes it: the bodies are then
// compiled once (REPLICANT_DECL), and no other unit parses, instantiates or generates them.
//
// Every reader below follows one pattern: read all fields through the sticky-failure byte_reader,
// check `finished()` once (truncation, overlong strings and trailing bytes all end up there), then
// check values and the session state, and only then change the reader's state. That ordering is
// what makes malformed input a decode_failure rather than a protocol_violation, and what leaves the
// reader untouched after any failure.

#include <replicant/core/detail/config.hpp>
#include <replicant/wire/framing.hpp>

#include <algorithm>
#include <new>
#include <string>
#include <system_error>

namespace replicant {

namespace detail {

// The longest global transaction identifier PostgreSQL accepts (GIDSIZE is 200 with the NUL).
inline constexpr std::size_t max_gid_length = 199;

// pgoutput abbreviates the pg_catalog schema to an empty string (proto.c, logicalrep_write_namespace).
[[nodiscard]] REPLICANT_DECL auto spell_out_schema(std::string_view schema) noexcept -> std::string_view {
  return schema.empty() ? std::string_view{"pg_catalog"} : schema;
}

[[nodiscard]] REPLICANT_DECL auto malformed() noexcept -> std::error_code {
  return make_error_code(errc::decode_failure);
}
[[nodiscard]] REPLICANT_DECL auto out_of_place() noexcept -> std::error_code {
  return make_error_code(errc::protocol_violation);
}

}  // namespace detail

REPLICANT_DECL auto pgoutput_reader::decode(std::span<const std::byte> payload) noexcept -> result<pgoutput::message> {
  // The message moves into the result once. The pipeline's own path decodes into a message of
  // its own (the overload below) and pays no move; assigning the error into a named result instead
  // would instantiate the result's assignment, the message variant's with it, in every unit.
  pgoutput::message out;
  if (const std::error_code ec = decode(payload, out)) return unexpected(ec);
  return out;
}

REPLICANT_DECL auto pgoutput_reader::decode(std::span<const std::byte> payload, pgoutput::message& out) noexcept
    -> std::error_code {
  detail::byte_reader in{payload};
  try {
    return decode_message(in, out);
  } catch (const std::bad_alloc&) {
    // Only Relation, Type and the stream bookkeeping allocate. Report it like any other failure
    // rather than terminating: the pipeline halts on it and nothing past it is acknowledged.
    return std::make_error_code(std::errc::not_enough_memory);
  }
}

REPLICANT_DECL auto pgoutput_reader::read_xid(detail::byte_reader& in) const noexcept -> std::optional<transaction_id> {
  if (!in_stream_) return std::nullopt;
  return in.u32();
}

REPLICANT_DECL auto pgoutput_reader::current_scope() noexcept -> stream_scope* {
  if (!in_stream_) return nullptr;
  const auto it = streams_.find(stream_xid_);
  return it == streams_.end() ? nullptr : &it->second;
}

REPLICANT_DECL auto pgoutput_reader::current_scope() const noexcept -> const stream_scope* {
  if (!in_stream_) return nullptr;
  const auto it = streams_.find(stream_xid_);
  return it == streams_.end() ? nullptr : &it->second;
}

REPLICANT_DECL auto pgoutput_reader::lookup_relation(std::uint32_t oid) noexcept -> const relation_info* {
  if (memo_relation_ != nullptr && memo_oid_ == oid) return memo_relation_;
  const relation_info* found = nullptr;
  if (const stream_scope* scope = current_scope()) {
    if (const auto it = scope->relations.find(oid); it != scope->relations.end()) found = it->second.get();
  }
  if (found == nullptr) {
    if (const auto it = relations_.find(oid); it != relations_.end() && it->second.current)
      found = it->second.info.get();
  }
  if (found != nullptr) {
    memo_oid_ = oid;
    memo_relation_ = found;
    memo_strict_ = detail::strict_columns(*found);
  }
  return found;
}

REPLICANT_DECL auto pgoutput_reader::find_relation(std::uint32_t oid) const noexcept
    -> std::shared_ptr<const relation_info> {
  if (const stream_scope* scope = current_scope()) {
    if (const auto it = scope->relations.find(oid); it != scope->relations.end()) return it->second;
  }
  if (const auto it = relations_.find(oid); it != relations_.end() && it->second.current) return it->second.info;
  return nullptr;
}

REPLICANT_DECL auto pgoutput_reader::find_type(std::uint32_t oid) const noexcept -> const type_info* {
  if (const stream_scope* scope = current_scope()) {
    if (const auto it = scope->types.find(oid); it != scope->types.end()) return &it->second;
  }
  const auto it = types_.find(oid);
  return it == types_.end() ? nullptr : &it->second;
}

REPLICANT_DECL auto pgoutput_reader::reset() noexcept -> void {
  in_stream_ = false;
  stream_xid_ = 0;
  streams_.clear();
  for (auto& entry : relations_) entry.second.current = false;
  last_change_.reset();
  forget_memo();
}

REPLICANT_DECL auto pgoutput_reader::clear() noexcept -> void {
  reset();
  relations_.clear();
  types_.clear();
}

REPLICANT_DECL auto pgoutput_reader::decode_message(detail::byte_reader& in, pgoutput::message& out)
    -> std::error_code {
  const std::uint8_t type = in.u8();  // 0 for an empty payload, which is no message type
  switch (type) {
    case 'I':  // first: by far the most frequent
    case 'U':
    case 'D': return decode_row(type, in, out);
    case 'T':
    case 'M': return decode_other_change(type, in, out);
    case 'B': {
      auto& m = out.emplace<pgoutput::begin_message>();
      m.final_lsn = lsn{in.u64()};
      m.commit_time = from_postgres_time(in.i64());
      m.xid = in.u32();
      if (!in.finished()) return detail::malformed();
      if (in_stream_) return detail::out_of_place();
      return {};
    }
    case 'C': {
      auto& m = out.emplace<pgoutput::commit_message>();
      const std::uint8_t flags = in.u8();
      m.commit_lsn = lsn{in.u64()};
      m.end_lsn = lsn{in.u64()};
      m.commit_time = from_postgres_time(in.i64());
      // Flags are unused and must be zero; the server's own reader errors otherwise, and a future
      // meaning for them must not be silently ignored.
      if (!in.finished() || flags != 0) return detail::malformed();
      if (in_stream_) return detail::out_of_place();
      return {};
    }
    case 'O': {
      auto& m = out.emplace<pgoutput::origin_message>();
      m.origin_lsn = lsn{in.u64()};
      m.name = in.string();
      if (!in.finished()) return detail::malformed();
      return {};
    }
    case 'R': return decode_relation(in, out);
    case 'Y': return decode_type(in, out);
    case 'S':
    case 'E':
    case 'c':
    case 'A': return decode_stream_control(type, in, out);
    case 'b':
    case 'P':
    case 'K':
    case 'r':
    case 'p': return decode_two_phase(type, in, out);
    default: return detail::malformed();
  }
}

REPLICANT_DECL auto pgoutput_reader::decode_row(std::uint8_t type, detail::byte_reader& in, pgoutput::message& out)
    -> std::error_code {
  const std::optional<transaction_id> xid = read_xid(in);
  // pgoutput describes every relation before its first change in a session, and each tuple has
  // one entry per described column; anything else would attribute values to the wrong columns.
  // The relation is looked up before the tuples are read, so that they are read with its checks.
  switch (type) {
    case 'I': {
      auto& m = out.emplace<pgoutput::insert_message>();
      m.xid = xid;
      m.relation_oid = in.u32();
      if (in.u8() != 'N') in.fail();
      m.relation = lookup_relation(m.relation_oid);
      m.new_tuple = read_row(in, m.relation);
      if (!in.finished()) return detail::malformed();
      if (m.relation == nullptr || m.relation->columns.size() != m.new_tuple.size()) return detail::out_of_place();
      return {};
    }
    case 'U': {
      auto& m = out.emplace<pgoutput::update_message>();
      m.xid = xid;
      m.relation_oid = in.u32();
      m.relation = lookup_relation(m.relation_oid);
      std::uint8_t marker = in.u8();
      if (marker == 'K' || marker == 'O') {
        m.old_kind = static_cast<pgoutput::old_tuple_kind>(marker);
        m.old_tuple = read_row(in, m.relation);
        marker = in.u8();
      }
      if (marker != 'N') in.fail();
      m.new_tuple = read_row(in, m.relation);
      if (!in.finished()) return detail::malformed();
      if (m.relation == nullptr || m.relation->columns.size() != m.new_tuple.size() ||
          (m.old_kind != pgoutput::old_tuple_kind::none && m.relation->columns.size() != m.old_tuple.size())) {
        return detail::out_of_place();
      }
      return {};
    }
    default: {  // 'D'
      auto& m = out.emplace<pgoutput::delete_message>();
      m.xid = xid;
      m.relation_oid = in.u32();
      m.relation = lookup_relation(m.relation_oid);
      const std::uint8_t marker = in.u8();
      if (marker == 'K' || marker == 'O') {
        m.old_kind = static_cast<pgoutput::old_tuple_kind>(marker);
      } else {
        in.fail();
      }
      m.old_tuple = read_row(in, m.relation);
      if (!in.finished()) return detail::malformed();
      if (m.relation == nullptr || m.relation->columns.size() != m.old_tuple.size()) return detail::out_of_place();
      return {};
    }
  }
}

// A numeric or bytea text without its type's shape makes the row malformed here, not when the sink
// casts it (detail/text_shape.hpp): the transaction halts before any of it is delivered. Only a
// relation with such a column pays for the check. @p relation is what lookup_relation() just
// returned, so the memo describes it.
REPLICANT_DECL auto pgoutput_reader::read_row(detail::byte_reader& in, const relation_info* relation) const
    -> tuple_data {
  if (relation == nullptr || memo_strict_ == 0) return detail::read_tuple(in);
  return detail::read_tuple(in, memo_strict_, [relation](std::size_t i, std::string_view text) {
    // Past bit 63 every column is handed over, and a row wider than its relation is refused after.
    return i >= relation->columns.size() || detail::has_its_shape(relation->columns[i].type_oid, text);
  });
}

REPLICANT_DECL auto pgoutput_reader::decode_other_change(std::uint8_t type, detail::byte_reader& in,
                                                         pgoutput::message& out) noexcept -> std::error_code {
  const std::optional<transaction_id> xid = read_xid(in);
  if (type == 'T') {
    auto& m = out.emplace<pgoutput::truncate_message>();
    m.xid = xid;
    const std::int32_t count = in.i32();
    const std::uint8_t options = in.u8();
    // Check the count against what is left before multiplying, so no count can overflow.
    if (count < 0 || static_cast<std::size_t>(count) > in.remaining() / 4) in.fail();
    const auto relids = in.bytes(static_cast<std::size_t>(count) * 4);
    // Only CASCADE (1) and RESTART IDENTITY (2) exist (TRUNCATE_CASCADE, TRUNCATE_RESTART_SEQS).
    if (!in.finished() || (options & ~0x03) != 0) return detail::malformed();
    m.cascade = (options & 0x01) != 0;
    m.restart_identity = (options & 0x02) != 0;
    m.relation_oids = pgoutput::relid_list{relids};
    return {};
  }
  auto& m = out.emplace<pgoutput::logical_message>();  // 'M'
  m.xid = xid;
  const std::uint8_t flags = in.u8();
  m.message_lsn = lsn{in.u64()};
  m.prefix = in.string();
  const std::int32_t length = in.i32();
  if (length < 0) in.fail();
  m.content = in.bytes(static_cast<std::size_t>(length));
  // Bit 0 is "transactional"; no other flag exists.
  if (!in.finished() || (flags & ~0x01) != 0) return detail::malformed();
  m.transactional = (flags & 0x01) != 0;
  return {};
}

REPLICANT_DECL auto pgoutput_reader::decode_relation(detail::byte_reader& in, pgoutput::message& out)
    -> std::error_code {
  const std::optional<transaction_id> xid = read_xid(in);
  const std::uint32_t oid = in.u32();
  const std::string_view schema = detail::spell_out_schema(in.string());
  const std::string_view table = in.string();
  const std::uint8_t identity = in.u8();
  const std::uint16_t count = in.u16();
  // A column takes at least 10 bytes (flags, an empty name's NUL, type OID, type modifier): a
  // count the payload cannot hold is rejected before it can size the reservation below.
  if (count > in.remaining() / 10) in.fail();
  columns_scratch_.clear();
  if (in.ok()) columns_scratch_.reserve(count);
  for (std::uint16_t i = 0; i < count && in.ok(); ++i) {
    column_view c{};
    c.flags = in.u8();
    c.name = in.string();
    c.type_oid = in.u32();
    c.type_modifier = in.i32();
    columns_scratch_.push_back(c);
  }
  if (!in.finished() || !detail::is_replica_identity(identity)) return detail::malformed();
  // Bit 0 marks a replica-identity column; no other flag exists.
  for (const column_view& c : columns_scratch_) {
    if ((c.flags & ~0x01) != 0) return detail::malformed();
  }

  // The description this one replaces: the streamed transaction's own first, then the main cache
  // (even a stale entry from before reset(), which is the classification baseline).
  std::shared_ptr<const relation_info> previous;
  if (const stream_scope* scope = current_scope()) {
    if (const auto it = scope->relations.find(oid); it != scope->relations.end()) previous = it->second;
  }
  if (!previous) {
    if (const auto it = relations_.find(oid); it != relations_.end()) previous = it->second.info;
  }

  const auto same_shape = [&](const relation_info& r) {
    if (r.schema != schema || r.table != table || static_cast<std::uint8_t>(r.identity) != identity ||
        r.columns.size() != columns_scratch_.size()) {
      return false;
    }
    for (std::size_t i = 0; i < r.columns.size(); ++i) {
      const column_info& a = r.columns[i];
      const column_view& b = columns_scratch_[i];
      if (a.name != b.name || a.type_oid != b.type_oid || a.type_modifier != b.type_modifier ||
          a.key != ((b.flags & 0x01) != 0)) {
        return false;
      }
    }
    return true;
  };

  std::shared_ptr<const relation_info> info;
  std::shared_ptr<const schema_change> change;
  if (previous && same_shape(*previous)) {
    // The routine identical re-send: keep the cached object, allocate nothing.
    info = previous;
  } else {
    // PostgreSQL forbids two columns of one name; a description with duplicates would make
    // name-based mapping ambiguous, so it cannot be genuine.
    std::vector<std::string_view> names;
    names.reserve(columns_scratch_.size());
    for (const column_view& c : columns_scratch_) names.push_back(c.name);
    std::sort(names.begin(), names.end());
    if (std::adjacent_find(names.begin(), names.end()) != names.end()) return detail::malformed();

    auto fresh = std::make_shared<relation_info>();
    fresh->oid = oid;
    fresh->schema = schema;
    fresh->table = table;
    fresh->identity = static_cast<replica_identity>(static_cast<char>(identity));
    fresh->columns.reserve(columns_scratch_.size());
    for (const column_view& c : columns_scratch_) {
      fresh->columns.push_back(column_info{std::string{c.name}, c.type_oid, c.type_modifier, (c.flags & 0x01) != 0});
    }
    if (previous) {
      schema_change classified = classify_schema_change(*previous, *fresh);
      if (classified.kind != schema_change_kind::none)
        change = std::make_shared<const schema_change>(std::move(classified));
    }
    info = std::move(fresh);
  }

  // Commit the new state (only allocation can fail from here on).
  if (in_stream_) {
    // Always record it in the streamed transaction's scope, even when identical to the main
    // cache: the main cache may change (a concurrent transaction's DDL) while this one streams.
    streams_[stream_xid_].relations.insert_or_assign(oid, info);
  } else {
    relations_.insert_or_assign(oid, cached_relation{info, true});
  }
  last_change_ = change;
  forget_memo();
  out.emplace<pgoutput::relation_message>(pgoutput::relation_message{xid, std::move(info), std::move(change)});
  return {};
}

REPLICANT_DECL auto pgoutput_reader::decode_type(detail::byte_reader& in, pgoutput::message& out) -> std::error_code {
  const std::optional<transaction_id> xid = read_xid(in);
  const std::uint32_t oid = in.u32();
  const std::string_view schema = detail::spell_out_schema(in.string());
  const std::string_view name = in.string();
  if (!in.finished()) return detail::malformed();
  auto& types = in_stream_ ? streams_[stream_xid_].types : types_;
  const auto it = types.find(oid);
  if (it == types.end() || it->second.schema != schema || it->second.name != name) {
    types.insert_or_assign(oid, type_info{oid, std::string{schema}, std::string{name}});
  }
  out.emplace<pgoutput::type_message>(pgoutput::type_message{xid, oid, schema, name});
  return {};
}

REPLICANT_DECL auto pgoutput_reader::decode_stream_control(std::uint8_t type, detail::byte_reader& in,
                                                           pgoutput::message& out) -> std::error_code {
  // Streaming messages exist only when the session asked for streaming (protocol 2+).
  const bool streaming = protocol_.streaming != pgoutput_streaming::off && protocol_.version >= 2;
  switch (type) {
    case 'S': {
      const transaction_id xid = in.u32();
      const std::uint8_t first = in.u8();
      if (!in.finished() || first > 1) return detail::malformed();
      if (!streaming || in_stream_) return detail::out_of_place();
      in_stream_ = true;
      stream_xid_ = xid;
      forget_memo();
      out.emplace<pgoutput::stream_start_message>(pgoutput::stream_start_message{xid, first == 1});
      return {};
    }
    case 'E': {
      if (!in.finished()) return detail::malformed();
      if (!streaming || !in_stream_) return detail::out_of_place();
      in_stream_ = false;
      forget_memo();
      out.emplace<pgoutput::stream_stop_message>();
      return {};
    }
    case 'c': {
      auto& m = out.emplace<pgoutput::stream_commit_message>();
      m.xid = in.u32();
      const std::uint8_t flags = in.u8();
      m.commit_lsn = lsn{in.u64()};
      m.end_lsn = lsn{in.u64()};
      m.commit_time = from_postgres_time(in.i64());
      if (!in.finished() || flags != 0) return detail::malformed();
      if (!streaming || in_stream_) return detail::out_of_place();
      // pgoutput now treats the streamed descriptions as sent for everyone (cleanup_rel_sync_cache
      // with is_commit), so later non-streamed changes use them without a new Relation.
      if (const auto it = streams_.find(m.xid); it != streams_.end()) {
        for (auto& [oid, info] : it->second.relations) relations_.insert_or_assign(oid, cached_relation{info, true});
        for (auto& [oid, t] : it->second.types) types_.insert_or_assign(oid, std::move(t));
        streams_.erase(it);
      }
      forget_memo();
      return {};
    }
    default: {  // 'A'
      auto& m = out.emplace<pgoutput::stream_abort_message>();
      m.xid = in.u32();
      m.subxid = in.u32();
      // The abort LSN and time are written only for streaming = parallel, not merely protocol 4
      // (pgoutput.c: write_abort_info), so the layout depends on what was negotiated.
      if (protocol_.streaming == pgoutput_streaming::parallel) {
        m.has_abort_info = true;
        m.abort_lsn = lsn{in.u64()};
        m.abort_time = from_postgres_time(in.i64());
      }
      if (!in.finished()) return detail::malformed();
      if (!streaming || in_stream_) return detail::out_of_place();
      // A whole-transaction abort discards its streamed descriptions; a subtransaction abort
      // leaves the rest of the transaction (and pgoutput re-describes what it invalidated).
      if (m.subxid == m.xid) streams_.erase(m.xid);
      forget_memo();
      return {};
    }
  }
}

REPLICANT_DECL auto pgoutput_reader::decode_two_phase(std::uint8_t type, detail::byte_reader& in,
                                                      pgoutput::message& out) noexcept -> std::error_code {
  // Begin Prepare has no flags byte; Prepare, Commit Prepared, Rollback Prepared and Stream
  // Prepare do, and it must be zero (the server's readers error on anything else).
  const std::uint8_t flags = type == 'b' ? std::uint8_t{0} : in.u8();
  const lsn first{in.u64()};
  const lsn second{in.u64()};
  const sys_microseconds time = from_postgres_time(in.i64());
  const sys_microseconds rollback_time = type == 'r' ? from_postgres_time(in.i64()) : sys_microseconds{};
  const transaction_id xid = in.u32();
  const std::string_view gid = in.string();
  if (!in.finished() || flags != 0 || gid.size() > detail::max_gid_length) return detail::malformed();
  if (protocol_.version < 3 || in_stream_ || (type == 'p' && protocol_.streaming == pgoutput_streaming::off)) {
    return detail::out_of_place();
  }
  const pgoutput::prepare_fields prepared{first, second, time, xid, gid};  // for 'b', 'P' and 'p'
  switch (type) {
    case 'b': out.emplace<pgoutput::begin_prepare_message>(pgoutput::begin_prepare_message{prepared}); break;
    case 'P': out.emplace<pgoutput::prepare_message>(pgoutput::prepare_message{prepared}); break;
    case 'K':
      out.emplace<pgoutput::commit_prepared_message>(pgoutput::commit_prepared_message{first, second, time, xid, gid});
      break;
    case 'r':
      out.emplace<pgoutput::rollback_prepared_message>(
          pgoutput::rollback_prepared_message{first, second, time, rollback_time, xid, gid});
      break;
    default:  // 'p'
      // The transaction's streamed descriptions are not merged: it is not committed, and pgoutput
      // keeps describing the relation to other transactions as before (no cleanup at prepare).
      streams_.erase(xid);
      forget_memo();
      out.emplace<pgoutput::stream_prepare_message>(pgoutput::stream_prepare_message{prepared});
      break;
  }
  return {};
}

}  // namespace replicant

#endif  // REPLICANT_DECODER_IMPL_PGOUTPUT_READER_HPP
