#include "engine/oom_request.hpp"

#include <re2/re2.h>

#include <cmath>

#include "engine/bounded_number.hpp"

namespace denpex {
namespace {

constexpr std::size_t kMaxWholeDigits = 12;
constexpr std::size_t kMaxFractionDigits = 6;

struct Unit {
    std::string_view name;
    double bytes;
};
constexpr Unit kUnits[] = {{"bytes", 1.0},
                           {"KiB", 1024.0},
                           {"MiB", 1024.0 * 1024},
                           {"GiB", 1024.0 * 1024 * 1024},
                           {"TiB", 1024.0 * 1024 * 1024 * 1024},
                           {"PiB", 1024.0 * 1024 * 1024 * 1024 * 1024}};

std::optional<double> read_size(const re2::StringPiece& piece) {
    return parse_memory_size(std::string_view(piece.data(), piece.size()));
}

}  // namespace

std::optional<double> parse_memory_size(std::string_view text) {
    const std::size_t space = text.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const std::string_view number = text.substr(0, space), unit = text.substr(space + 1);
    const std::size_t point = number.find('.');
    const std::string_view whole = number.substr(0, point);
    const std::string_view fraction = point == std::string_view::npos ? std::string_view() : number.substr(point + 1);
    if (whole.size() > kMaxWholeDigits || fraction.size() > kMaxFractionDigits) return std::nullopt;
    if (point != std::string_view::npos && fraction.empty()) return std::nullopt;
    const auto w = parse_bounded<long long>(whole, 0);
    if (!w) return std::nullopt;
    double value = static_cast<double>(*w);
    if (!fraction.empty()) {
        const auto f = parse_bounded<long long>(fraction, 0);
        if (!f) return std::nullopt;
        value += static_cast<double>(*f) / std::pow(10.0, static_cast<double>(fraction.size()));
    }
    for (const Unit& u : kUnits)
        if (unit == u.name) return value * u.bytes;
    return std::nullopt;
}

OomRequest read_oom_request(std::string_view line) {
    static const RE2 request(R"(Tried to allocate ([0-9]+(?:\.[0-9]+)? (?:bytes|[KMGTP]iB)))");
    // 2.0+: "GPU 1 has a total capacity of 79.10 GiB" (2.1 spelled it "capacty"); before: "39.59 GiB total capacity".
    static const RE2 capacity(R"(total capac(?:i)?ty of ([0-9]+(?:\.[0-9]+)? (?:bytes|[KMGTP]iB))|)"
                              R"(([0-9]+(?:\.[0-9]+)? (?:bytes|[KMGTP]iB)) total capacity)");
    const re2::StringPiece text(line.data(), line.size());
    OomRequest out;
    re2::StringPiece asked, newer, older;
    if (RE2::PartialMatch(text, request, &asked)) out.requested = read_size(asked);
    if (RE2::PartialMatch(text, capacity, &newer, &older)) out.capacity = read_size(newer.empty() ? older : newer);
    return out;
}

}  // namespace denpex
