// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CHECKPOINT_IMPL_FILE_STORE_HPP
#define REPLICANT_CHECKPOINT_IMPL_FILE_STORE_HPP

// Out-of-line bodies of replicant::file_checkpoint_store and of its file format. Included at the
// bottom of <replicant/checkpoint/file_store.hpp> (which it includes nothing of back); with
// REPLICANT_SEPARATE_COMPILATION only by <replicant/checkpoint/src.hpp>.

#include <replicant/checkpoint/detail/durable_file.hpp>
#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace replicant {

namespace detail {

REPLICANT_DECL auto take_line(std::string_view& text) noexcept -> std::optional<std::string_view> {
  const auto end = text.find('\n');
  if (end == std::string_view::npos) return std::nullopt;
  const auto line = text.substr(0, end);
  text.remove_prefix(end + 1);
  return line;
}

REPLICANT_DECL auto take_field(std::string_view& text, std::string_view key) noexcept
    -> std::optional<std::string_view> {
  const auto line = take_line(text);
  if (!line || line->size() <= key.size() || line->substr(0, key.size()) != key || (*line)[key.size()] != ' ') {
    return std::nullopt;
  }
  return line->substr(key.size() + 1);
}

REPLICANT_DECL auto format_checkpoint_file(const slot_name& slot, lsn at) -> std::string {
  std::string out{checkpoint_file_magic};
  out += "\nslot ";
  out += slot.view();
  out += "\ncommit_lsn ";
  out += to_string(at);
  out += '\n';
  return out;
}

REPLICANT_DECL auto parse_checkpoint_file(std::string_view text, const slot_name& slot) noexcept -> result<lsn> {
  if (take_line(text) != checkpoint_file_magic) return fail(errc::store_mismatch);
  if (take_field(text, "slot") != slot.view()) return fail(errc::store_mismatch);
  const auto at = take_field(text, "commit_lsn");
  if (!at || !text.empty()) return fail(errc::store_mismatch);
  auto parsed = parse_lsn(*at);
  if (!parsed) return fail(errc::store_mismatch);
  return *parsed;
}

REPLICANT_DECL auto format_progress_file(const slot_name& slot, std::string_view token) -> std::string {
  std::string out{progress_file_magic};
  out += "\nslot ";
  out += slot.view();
  out += "\nlength ";
  out += std::to_string(token.size());
  out += '\n';
  out += token;
  return out;
}

REPLICANT_DECL auto parse_progress_file(std::string_view text, const slot_name& slot) -> result<std::string> {
  if (take_line(text) != progress_file_magic) return fail(errc::store_mismatch);
  if (take_field(text, "slot") != slot.view()) return fail(errc::store_mismatch);
  const auto length = take_field(text, "length");
  if (!length || *length != std::to_string(text.size())) return fail(errc::store_mismatch);
  return std::string{text};
}

}  // namespace detail

REPLICANT_DECL file_checkpoint_store::file_checkpoint_store(std::filesystem::path file, file_store_options options)
    : file_(std::move(file)), options_(options) {
  // Refused by every call: a path that names no file, a timeout that allows no call.
  if (file_.empty() || !file_.has_filename() || options_.io_timeout <= std::chrono::milliseconds::zero()) return;
  temp_ = file_;
  temp_ += ".tmp";
  progress_ = file_;
  progress_ += ".progress";
  progress_temp_ = progress_;
  progress_temp_ += ".tmp";
  directory_ = file_.parent_path();
  if (directory_.empty()) directory_ = ".";
}

REPLICANT_DECL file_checkpoint_store::file_checkpoint_store(const file_checkpoint_store& other)
    : file_(other.file_),
      options_(other.options_),
      temp_(other.temp_),
      directory_(other.directory_),
      progress_(other.progress_),
      progress_temp_(other.progress_temp_) {}

REPLICANT_DECL auto file_checkpoint_store::operator=(const file_checkpoint_store& other) -> file_checkpoint_store& {
  if (this != &other) *this = file_checkpoint_store{other};
  return *this;
}

REPLICANT_DECL auto file_checkpoint_store::read(const slot_name& slot) const -> result<std::optional<lsn>> {
  if (temp_.empty()) return fail(errc::invalid_options);
  // The job owns copies of what it uses: it may outlive this call, and this object.
  return bounded<std::optional<lsn>>([file = file_, slot]() -> result<std::optional<lsn>> {
    auto bytes = detail::read_small_file(file, detail::checkpoint_file_limit);
    if (!bytes) return unexpected(bytes.error());
    if (!*bytes) return std::optional<lsn>{};
    if ((*bytes)->size() > detail::checkpoint_file_limit) return fail(errc::store_mismatch);
    auto at = detail::parse_checkpoint_file(**bytes, slot);
    if (!at) return unexpected(at.error());
    return std::optional<lsn>{*at};
  });
}

REPLICANT_DECL auto file_checkpoint_store::write(const slot_name& slot, lsn at) -> result<void> {
  if (temp_.empty()) return fail(errc::invalid_options);
  return bounded<void>([file = file_, temp = temp_, directory = directory_,
                        bytes = detail::format_checkpoint_file(slot, at)]() -> result<void> {
    return detail::replace_file_durably(file, temp, directory, bytes);
  });
}

REPLICANT_DECL auto file_checkpoint_store::read_progress(const slot_name& slot) const
    -> result<std::optional<std::string>> {
  if (temp_.empty()) return fail(errc::invalid_options);
  return bounded<std::optional<std::string>>([file = progress_, slot]() -> result<std::optional<std::string>> {
    auto bytes = detail::read_small_file(file, detail::progress_file_limit);
    if (!bytes) return unexpected(bytes.error());
    if (!*bytes) return std::optional<std::string>{};
    if ((*bytes)->size() > detail::progress_file_limit) return fail(errc::store_mismatch);
    auto token = detail::parse_progress_file(**bytes, slot);
    if (!token) return unexpected(token.error());
    return std::optional<std::string>{std::move(*token)};
  });
}

REPLICANT_DECL auto file_checkpoint_store::write_progress(const slot_name& slot, std::string_view token)
    -> result<void> {
  if (temp_.empty() || token.size() > detail::progress_file_limit / 2) return fail(errc::invalid_options);
  return bounded<void>([file = progress_, temp = progress_temp_, directory = directory_,
                        bytes = detail::format_progress_file(slot, token)]() -> result<void> {
    return detail::replace_file_durably(file, temp, directory, bytes);
  });
}

}  // namespace replicant

#endif  // REPLICANT_CHECKPOINT_IMPL_FILE_STORE_HPP
