// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_DETAIL_EXPECTED_HPP
#define REPLICANT_CORE_DETAIL_EXPECTED_HPP

// replicant::result's type: the subset of std::expected replicant uses, with the same names and
// meanings. It is used in every language mode, C++23 included, so that one program may mix C++20 and
// C++23 translation units (an alias that switched to std::expected would give one function two
// definitions).

#include <exception>
#include <new>
#include <type_traits>
#include <utility>
#include <variant>

namespace replicant::detail {

/// Thrown by expected::value() when it holds an error.
class bad_expected_access : public std::exception {
 public:
  [[nodiscard]] auto what() const noexcept -> const char* override {
    return "replicant: result accessed without a value";
  }
};

// *std::get_if<I>(&v) for an alternative known to be held. Saying so to the optimiser keeps GCC's
// -Wnull-dereference quiet at -O2, where it cannot see that the pointer is never null.
template <std::size_t I, class V>
constexpr auto held(V& v) noexcept -> auto& {
  auto* p = std::get_if<I>(&v);
  if (p == nullptr) __builtin_unreachable();
  return *p;
}

template <class E>
class unexpected {
 public:
  constexpr explicit unexpected(E e) noexcept(std::is_nothrow_move_constructible_v<E>)
      : error_(std::move(e)) {}
  [[nodiscard]] constexpr auto error() const& noexcept -> const E& { return error_; }
  [[nodiscard]] constexpr auto error() && noexcept -> E&& { return std::move(error_); }

 private:
  E error_;
};

template <class E>
unexpected(E) -> unexpected<E>;

template <class T, class E>
class expected {
 public:
  using value_type = T;
  using error_type = E;

  constexpr expected() requires std::is_default_constructible_v<T> : state_(std::in_place_index<0>) {}

  template <class U = T>
    requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::remove_cvref_t<U>, expected> &&
             !std::is_same_v<std::remove_cvref_t<U>, unexpected<E>>)
  constexpr expected(U&& v)  // NOLINT(google-explicit-constructor): mirrors std::expected
      : state_(std::in_place_index<0>, std::forward<U>(v)) {}

  template <class G>
  constexpr expected(const unexpected<G>& u)  // NOLINT(google-explicit-constructor)
      : state_(std::in_place_index<1>, u.error()) {}
  template <class G>
  constexpr expected(unexpected<G>&& u)  // NOLINT(google-explicit-constructor)
      : state_(std::in_place_index<1>, std::move(u).error()) {}

  [[nodiscard]] constexpr auto has_value() const noexcept -> bool { return state_.index() == 0; }
  [[nodiscard]] constexpr explicit operator bool() const noexcept { return has_value(); }

  [[nodiscard]] constexpr auto value() & -> T& { return checked(), held<0>(state_); }
  [[nodiscard]] constexpr auto value() const& -> const T& { return checked(), held<0>(state_); }
  [[nodiscard]] constexpr auto value() && -> T&& { return checked(), std::move(held<0>(state_)); }

  [[nodiscard]] constexpr auto operator*() & noexcept -> T& { return held<0>(state_); }
  [[nodiscard]] constexpr auto operator*() const& noexcept -> const T& { return held<0>(state_); }
  [[nodiscard]] constexpr auto operator*() && noexcept -> T&& { return std::move(held<0>(state_)); }
  [[nodiscard]] constexpr auto operator->() noexcept -> T* { return &held<0>(state_); }
  [[nodiscard]] constexpr auto operator->() const noexcept -> const T* { return &held<0>(state_); }

  [[nodiscard]] constexpr auto error() const& noexcept -> const E& { return held<1>(state_); }
  [[nodiscard]] constexpr auto error() & noexcept -> E& { return held<1>(state_); }

  template <class U>
  [[nodiscard]] constexpr auto value_or(U&& fallback) const& -> T {
    return has_value() ? **this : static_cast<T>(std::forward<U>(fallback));
  }
  template <class U>
  [[nodiscard]] constexpr auto value_or(U&& fallback) && -> T {
    return has_value() ? std::move(**this) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  constexpr auto checked() const -> void {
    if (!has_value()) throw bad_expected_access{};
  }

  std::variant<T, E> state_;
};

template <class E>
class expected<void, E> {
 public:
  using value_type = void;
  using error_type = E;

  constexpr expected() noexcept = default;
  template <class G>
  constexpr expected(const unexpected<G>& u)  // NOLINT(google-explicit-constructor)
      : error_(u.error()), failed_(true) {}
  template <class G>
  constexpr expected(unexpected<G>&& u)  // NOLINT(google-explicit-constructor)
      : error_(std::move(u).error()), failed_(true) {}

  [[nodiscard]] constexpr auto has_value() const noexcept -> bool { return !failed_; }
  [[nodiscard]] constexpr explicit operator bool() const noexcept { return has_value(); }
  constexpr auto value() const -> void {
    if (failed_) throw bad_expected_access{};
  }
  constexpr auto operator*() const noexcept -> void {}
  [[nodiscard]] constexpr auto error() const& noexcept -> const E& { return error_; }

 private:
  E error_{};
  bool failed_ = false;
};

}  // namespace replicant::detail

#endif  // REPLICANT_CORE_DETAIL_EXPECTED_HPP
