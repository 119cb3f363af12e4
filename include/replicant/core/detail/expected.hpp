// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_CORE_DETAIL_EXPECTED_HPP
#define REPLICANT_CORE_DETAIL_EXPECTED_HPP

// replicant::result's type: the subset of std::expected replicant uses, with the same names and
// meanings. It is used in every language mode, C++23 included, so that one program may mix C++20 and
// C++23 translation units (an alias that switched to std::expected would give one function two
// definitions).

#include <exception>
#include <memory>
#include <type_traits>
#include <utility>

namespace replicant::detail {

/// Thrown by expected::value() when it holds an error.
class bad_expected_access : public std::exception {
 public:
  [[nodiscard]] auto what() const noexcept -> const char* override {
    return "replicant: result accessed without a value";
  }
};

template <class E>
class unexpected {
 public:
  constexpr explicit unexpected(E e) noexcept(std::is_nothrow_move_constructible_v<E>) : error_(std::move(e)) {}
  [[nodiscard]] constexpr auto error() const& noexcept -> const E& { return error_; }
  [[nodiscard]] constexpr auto error() && noexcept -> E&& { return std::move(error_); }

 private:
  E error_;
};

template <class E>
unexpected(E) -> unexpected<E>;

// The storage of expected<T, E>: a union of the two and which one lives. A union of two, not a
// std::variant: every result<T> of the library is a distinct instantiation in every translation
// unit that uses it, and a variant's visitation machinery made them a tenth of a program's compile
// time. The destructor is trivial when both are (the second specialisation destroys what lives).
struct copy_of_t {};

template <class T, class E, bool = std::is_trivially_destructible_v<T> && std::is_trivially_destructible_v<E>>
struct expected_storage {
  template <class... A>
  constexpr explicit expected_storage(std::in_place_index_t<0>, A&&... a) : value_(std::forward<A>(a)...) {}
  template <class... A>
  constexpr explicit expected_storage(std::in_place_index_t<1>, A&&... a)
      : error_(std::forward<A>(a)...), has_value_(false) {}
  // A copy (or, from an rvalue, a move) of what @p o holds.
  template <class S>
  constexpr expected_storage(copy_of_t, S&& o) : has_value_(o.has_value_) {
    if (has_value_) {
      std::construct_at(&value_, std::forward<S>(o).value_);
    } else {
      std::construct_at(&error_, std::forward<S>(o).error_);
    }
  }
  constexpr auto destroy() noexcept -> void {}

  union {
    T value_;
    E error_;
  };
  bool has_value_ = true;
};

template <class T, class E>
struct expected_storage<T, E, false> {
  template <class... A>
  constexpr explicit expected_storage(std::in_place_index_t<0>, A&&... a) : value_(std::forward<A>(a)...) {}
  template <class... A>
  constexpr explicit expected_storage(std::in_place_index_t<1>, A&&... a)
      : error_(std::forward<A>(a)...), has_value_(false) {}
  // A copy (or, from an rvalue, a move) of what @p o holds.
  template <class S>
  constexpr expected_storage(copy_of_t, S&& o) : has_value_(o.has_value_) {
    if (has_value_) {
      std::construct_at(&value_, std::forward<S>(o).value_);
    } else {
      std::construct_at(&error_, std::forward<S>(o).error_);
    }
  }
  expected_storage(const expected_storage&) = delete;
  auto operator=(const expected_storage&) -> expected_storage& = delete;
  constexpr ~expected_storage() { destroy(); }
  constexpr auto destroy() noexcept -> void {
    if (has_value_) {
      std::destroy_at(&value_);
    } else {
      std::destroy_at(&error_);
    }
  }

  union {
    T value_;
    E error_;
  };
  bool has_value_ = true;
};

// Copy and move of expected<T, E>: the implicit (trivial) ones when T and E are trivially
// copyable, so that a result of a small value still travels in registers; else each built from
// what the other holds. An assignment that changes which one lives keeps the old error if making
// the value throws.
template <class T, class E, bool = std::is_trivially_copyable_v<T> && std::is_trivially_copyable_v<E>>
struct expected_base : expected_storage<T, E> {
  using expected_storage<T, E>::expected_storage;
};

template <class T, class E>
struct expected_base<T, E, false> : expected_storage<T, E> {
  using storage = expected_storage<T, E>;
  using storage::storage;

  constexpr expected_base(const expected_base& o)
    requires(std::is_copy_constructible_v<T>)
      : storage(copy_of_t{}, static_cast<const storage&>(o)) {}
  constexpr expected_base(expected_base&& o) noexcept(std::is_nothrow_move_constructible_v<T>)
      : storage(copy_of_t{}, static_cast<storage&&>(o)) {}
  constexpr auto operator=(const expected_base& o) -> expected_base& requires(std::is_copy_constructible_v<T>) {
    if (this != &o) assign(o.has_value_, o.value_, o.error_);
    return *this;
  } constexpr auto operator=(expected_base&& o) noexcept(std::is_nothrow_move_constructible_v<T>) -> expected_base& {
    if (this != &o) assign(o.has_value_, std::move(o.value_), std::move(o.error_));
    return *this;
  }

 private:
  template <class V, class G>
  constexpr auto assign(bool has_value, V&& value, G&& error) -> void {
    if (this->has_value_ && has_value) {
      this->value_ = std::forward<V>(value);
    } else if (!this->has_value_ && !has_value) {
      this->error_ = std::forward<G>(error);
    } else if (this->has_value_) {
      std::destroy_at(&this->value_);
      std::construct_at(&this->error_, std::forward<G>(error));
      this->has_value_ = false;
    } else {
      E old = std::move(this->error_);
      std::destroy_at(&this->error_);
      try {
        std::construct_at(&this->value_, std::forward<V>(value));
      } catch (...) {
        std::construct_at(&this->error_, std::move(old));
        throw;
      }
      this->has_value_ = true;
    }
  }
};

template <class T, class E>
class expected : private expected_base<T, E> {
  using base = expected_base<T, E>;

 public:
  using value_type = T;
  using error_type = E;

  constexpr expected()
    requires std::is_default_constructible_v<T>
      : base(std::in_place_index<0>) {}

  template <class U = T>
    requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::remove_cvref_t<U>, expected> &&
             !std::is_same_v<std::remove_cvref_t<U>, unexpected<E>>)
  constexpr expected(U&& v)  // NOLINT(google-explicit-constructor): mirrors std::expected
      : base(std::in_place_index<0>, std::forward<U>(v)) {}

  template <class G>
  constexpr expected(const unexpected<G>& u)  // NOLINT(google-explicit-constructor)
      : base(std::in_place_index<1>, u.error()) {}
  template <class G>
  constexpr expected(unexpected<G>&& u)  // NOLINT(google-explicit-constructor)
      : base(std::in_place_index<1>, std::move(u).error()) {}

  [[nodiscard]] constexpr auto has_value() const noexcept -> bool { return this->has_value_; }
  [[nodiscard]] constexpr explicit operator bool() const noexcept { return has_value(); }

  [[nodiscard]] constexpr auto value() & -> T& { return checked(), this->value_; }
  [[nodiscard]] constexpr auto value() const& -> const T& { return checked(), this->value_; }
  [[nodiscard]] constexpr auto value() && -> T&& { return checked(), std::move(this->value_); }

  [[nodiscard]] constexpr auto operator*() & noexcept -> T& { return this->value_; }
  [[nodiscard]] constexpr auto operator*() const& noexcept -> const T& { return this->value_; }
  [[nodiscard]] constexpr auto operator*() && noexcept -> T&& { return std::move(this->value_); }
  [[nodiscard]] constexpr auto operator->() noexcept -> T* { return &this->value_; }
  [[nodiscard]] constexpr auto operator->() const noexcept -> const T* { return &this->value_; }

  [[nodiscard]] constexpr auto error() const& noexcept -> const E& { return this->error_; }
  [[nodiscard]] constexpr auto error() & noexcept -> E& { return this->error_; }

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
