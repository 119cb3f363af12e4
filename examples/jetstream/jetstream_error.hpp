// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_JETSTREAM_JETSTREAM_ERROR_HPP
#define REPLICANT_EXAMPLES_JETSTREAM_JETSTREAM_ERROR_HPP

/// @file
/// The broker faults of replicant-jetstream as an error category of its own (`jetstream_errc`),
/// so that a halt's cause names the fault in fixed words. A broker's own texts are never passed
/// on: a permission violation quotes the subject, a server error may quote a message id, and the
/// program's output stays free of anything but fixed text, codes and positions.

#include <nats/nats.h>

#include <string>
#include <string_view>
#include <system_error>

namespace replicant::examples::jetstream {

/// Why the sink could not publish, or read its checkpoint. Each has a fixed message.
enum class jetstream_errc {
  /// Connecting to the NATS servers failed (none reachable, or the credentials were refused).
  connect_failed = 1,
  /// The stream does not exist (the sink never creates it: see `--create-stream`).
  stream_missing,
  /// The user may not publish to the stream's subjects, or use the JetStream API.
  permission_denied,
  /// The stream refused a message at its limit (bytes or messages) under the discard-new policy.
  stream_full,
  /// The stream stored nothing: it has no leader (no quorum), or the broker did not answer in
  /// time, or the connection is down. Retried by the program for `--max-outage-s`.
  unavailable,
  /// The stream's last sequence is not the one this pipeline expected: a message it published
  /// was lost on the way (a leader change), or another publisher writes to the stream. Nothing is
  /// stored past such a gap; a restart reads the stream's end again.
  sequence_mismatch,
  /// The subject belongs to another stream than the one named.
  wrong_stream,
  /// One change is larger than the broker's maximum message size.
  message_too_large,
  /// The stream cannot hold a checkpoint safely: its retention is not `limits`, its discard
  /// policy is not `new`, or its subjects do not cover the prefix.
  stream_unsuitable,
  /// The stream's last commit marker or last message is not one this sink wrote.
  checkpoint_unreadable,
  /// Any other failure of the NATS client or the JetStream API.
  broker_error,
  /// The servers refused the credentials: the user and password, the token, the NKey or the
  /// credentials file. No retry mends that: the program stops at once.
  credentials_refused,
  /// The TLS connection failed: a certificate that does not verify (either side's), a client
  /// certificate the servers refuse or miss, or TLS required by one side and not offered by the
  /// other. The program stops at once.
  tls_failed,
  /// A credentials or TLS file given to the program could not be used: unreadable, not in the
  /// format nats.c reads, or a key that does not match its certificate. The program stops at once.
  security_files_unusable,
};

}  // namespace replicant::examples::jetstream

// Before the first comparison with a code: a specialization after use would be ill-formed.
template <>
struct std::is_error_code_enum<replicant::examples::jetstream::jetstream_errc> : std::true_type {};

namespace replicant::examples::jetstream {

/// Whether @p e is a fault that may pass by itself (a leader election, a node restarting, a
/// stale publish of an earlier run): the program retries those within its outage bound. Never throws.
[[nodiscard]] constexpr auto is_transient(jetstream_errc e) noexcept -> bool {
  return e == jetstream_errc::unavailable || e == jetstream_errc::sequence_mismatch ||
         e == jetstream_errc::broker_error;
}

namespace detail {

class jetstream_category_impl final : public std::error_category {
 public:
  [[nodiscard]] auto name() const noexcept -> const char* override { return "replicant.jetstream"; }
  [[nodiscard]] auto message(int code) const -> std::string override {
    switch (static_cast<jetstream_errc>(code)) {
      case jetstream_errc::connect_failed: return "could not connect to the NATS servers";
      case jetstream_errc::stream_missing: return "the stream does not exist";
      case jetstream_errc::permission_denied: return "permission denied by the NATS servers";
      case jetstream_errc::stream_full: return "the stream is full (its byte or message limit, discard new)";
      case jetstream_errc::unavailable: return "the stream is unavailable (no leader, no quorum, or no answer)";
      case jetstream_errc::sequence_mismatch: return "the stream's last sequence is not the expected one";
      case jetstream_errc::wrong_stream: return "the subject belongs to another stream";
      case jetstream_errc::message_too_large: return "a change is larger than the broker's maximum message size";
      case jetstream_errc::stream_unsuitable:
        return "the stream cannot keep a checkpoint (needs retention limits, discard new, and the prefix's subjects)";
      case jetstream_errc::checkpoint_unreadable: return "the stream's last messages were not written by this sink";
      case jetstream_errc::broker_error: return "the NATS client or the JetStream API failed";
      case jetstream_errc::credentials_refused:
        return "the NATS servers refused the credentials (user and password, token, NKey or credentials file)";
      case jetstream_errc::tls_failed:
        return "the TLS connection to the NATS servers failed (a certificate that does not verify or is refused, or "
               "TLS on one side only)";
      case jetstream_errc::security_files_unusable:
        return "a credentials or TLS file could not be used (unreadable, not the expected format, or a key that "
               "does not match its certificate)";
    }
    return "unknown jetstream error";
  }
};

}  // namespace detail

/// The category of @ref jetstream_errc, named `"replicant.jetstream"`. Never throws.
[[nodiscard]] inline auto jetstream_category() noexcept -> const std::error_category& {
  static const detail::jetstream_category_impl instance;
  return instance;
}

/// Makes @p e a `std::error_code` (found by argument-dependent lookup). Never throws.
[[nodiscard]] inline auto make_error_code(jetstream_errc e) noexcept -> std::error_code {
  return {static_cast<int>(e), jetstream_category()};
}

/// Whether @p ec is a transient @ref jetstream_errc (see is_transient()). Never throws.
[[nodiscard]] inline auto is_transient(std::error_code ec) noexcept -> bool {
  return ec.category() == jetstream_category() && is_transient(static_cast<jetstream_errc>(ec.value()));
}

/**
 * The fault behind a failed nats.c call or JetStream answer: @p status from the client, @p code
 * the JetStream error code (0 when none), @p text the server's description, read only to tell
 * "maximum bytes exceeded" from the other storage failures of code 10077 and never kept.
 * @p denied says whether the connection saw a permission violation meanwhile (the server reports
 * one apart from the publish it refused, which then simply gets no answer). Never throws.
 */
[[nodiscard]] inline auto classify(natsStatus status, jsErrCode code, std::string_view text, bool denied) noexcept
    -> jetstream_errc {
  switch (code) {
    case JSStreamNotFoundErr: return jetstream_errc::stream_missing;
    case JSStreamStoreFailedErr:
      return text.find("maximum") != std::string_view::npos ? jetstream_errc::stream_full
                                                            : jetstream_errc::broker_error;
    case JSStreamWrongLastSequenceErr:
    case JSStreamSequenceNotMatchErr: return jetstream_errc::sequence_mismatch;
    case JSStreamNotMatchErr: return jetstream_errc::wrong_stream;
    case JSStreamMessageExceedsMaximumErr: return jetstream_errc::message_too_large;
    case JSClusterNotAvailErr:
    case JSClusterNotLeaderErr:
    case JSStreamOfflineErr:
    case JSClusterIncompleteErr: return jetstream_errc::unavailable;
    case JSNotEnabledErr:
    case JSNotEnabledForAccountErr: return jetstream_errc::stream_missing;
    default: break;
  }
  if (status == NATS_CONNECTION_AUTH_FAILED) return jetstream_errc::credentials_refused;
  if (status == NATS_SSL_ERROR || status == NATS_SECURE_CONNECTION_REQUIRED ||
      status == NATS_SECURE_CONNECTION_WANTED) {
    return jetstream_errc::tls_failed;
  }
  if (denied || status == NATS_NOT_PERMITTED) return jetstream_errc::permission_denied;
  switch (status) {
    case NATS_MAX_PAYLOAD: return jetstream_errc::message_too_large;
    case NATS_TIMEOUT:
    case NATS_NO_RESPONDERS:
    case NATS_CONNECTION_CLOSED:
    case NATS_CONNECTION_DISCONNECTED:
    case NATS_NO_SERVER:
    case NATS_STALE_CONNECTION:
    case NATS_IO_ERROR: return jetstream_errc::unavailable;
    default: return jetstream_errc::broker_error;
  }
}

}  // namespace replicant::examples::jetstream

#endif  // REPLICANT_EXAMPLES_JETSTREAM_JETSTREAM_ERROR_HPP
