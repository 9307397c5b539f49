// Numbers read from logs: the one bounded, checked parser.
//
// Contract. Every number denpex reads out of log text, a file name, a capture of a knowledge pattern or a
// launch script goes through `parse_bounded` (or `to_number`, its full-range form). A log is untrusted input,
// so the parser
//   - never throws, never overflows and never reads outside the view it is given;
//   - accepts only the whole view: an optional '-' (signed types only) and 1 to 20 decimal digits, nothing
//     else (no sign '+', no spaces, no hex, no trailing text);
//   - returns nullopt when the text is not such a number or its value lies outside [lo, hi].
// A number that does not fit is no number: the line it came from is read as if it did not state it.
// `bounded_span` reads the two ends of "a-b" ranges (srun's "tasks 2-5") and refuses spans wider than the
// cap its caller gives, so a range can never expand to more values than that cap.
// No std::stoi / stol / stoul / atoi / atol in engine/ or server/ (they throw or overflow): a test greps for them.
#pragma once

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace denpex {

template <class T>
std::optional<T> parse_bounded(std::string_view text, T lo = std::numeric_limits<T>::lowest(),
                               T hi = std::numeric_limits<T>::max()) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "parse_bounded reads integers");
    std::string_view digits = text;
    if constexpr (std::is_signed_v<T>) {
        if (!digits.empty() && digits.front() == '-') digits.remove_prefix(1);
    }
    if (digits.empty() || digits.size() > 20) return std::nullopt;   // 20: UINT64_MAX's length
    for (char c : digits)
        if (c < '0' || c > '9') return std::nullopt;
    T value{};
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc{} || ptr != end) return std::nullopt;
    if (value < lo || value > hi) return std::nullopt;
    return value;
}

// Full range of T: decimal digits to a number, nullopt when that is not what the text is.
template <class T>
std::optional<T> to_number(std::string_view digits) {
    return parse_bounded<T>(digits);
}

// The ends of a span "first-last" (`last` empty: the single value `first`). nullopt when either end is not a
// number in [lo, hi], when last < first, or when the span holds more than `max_values` values.
template <class T>
std::optional<std::pair<T, T>> bounded_span(std::string_view first, std::string_view last, T lo, T hi,
                                            std::uint64_t max_values) {
    const auto a = parse_bounded<T>(first, lo, hi);
    if (!a) return std::nullopt;
    if (last.empty()) return std::pair<T, T>{*a, *a};
    const auto b = parse_bounded<T>(last, lo, hi);
    if (!b || *b < *a) return std::nullopt;
    using U = std::make_unsigned_t<T>;
    const std::uint64_t gaps = static_cast<U>(static_cast<U>(*b) - static_cast<U>(*a));   // b >= a: no wrap
    if (max_values == 0 || gaps >= max_values) return std::nullopt;
    return std::pair<T, T>{*a, *b};
}

}  // namespace denpex
