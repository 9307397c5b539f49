#include "engine/version_range.hpp"

#include "engine/bounded_number.hpp"

namespace denpex {
namespace {

constexpr int kAnyMinor = 9999;   // "1.x": the last minor of a major, so "<2.0" is "<=1.x"
constexpr int kMaxComponent = 99999;

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

std::optional<Version> parse_version(std::string_view s) {
    s = trim(s);
    // "2", "2.1" or "2.1.<anything>": patch levels ("2.1.2") do not change message formats; ignore them.
    const std::size_t dot = s.find('.');
    Version v;
    const auto major = parse_bounded<int>(s.substr(0, dot), 0, kMaxComponent);
    if (!major) return std::nullopt;
    v.major = *major;
    if (dot == std::string_view::npos) return v;
    std::string_view rest = s.substr(dot + 1);
    const auto minor = parse_bounded<int>(rest.substr(0, rest.find('.')), 0, kMaxComponent);
    if (!minor) return std::nullopt;
    v.minor = *minor;
    return v;
}

Version before(Version v) {
    if (v.minor > 0) return {v.major, v.minor - 1};
    return {v.major - 1, kAnyMinor};
}

Version after(Version v) {
    if (v.minor == kAnyMinor) return {v.major + 1, 0};
    return {v.major, v.minor + 1};
}

}  // namespace

std::optional<VersionRange> VersionRange::parse(std::string_view text) {
    text = trim(text);
    VersionRange r;
    auto with = [&](std::string_view op) { return text.substr(0, op.size()) == op; };
    if (with(">=")) {
        r.lo = parse_version(text.substr(2));
        if (!r.lo) return std::nullopt;
    } else if (with("<=")) {
        r.hi = parse_version(text.substr(2));
        if (!r.hi) return std::nullopt;
    } else if (with(">")) {
        auto v = parse_version(text.substr(1));
        if (!v) return std::nullopt;
        r.lo = after(*v);
    } else if (with("<")) {
        auto v = parse_version(text.substr(1));
        if (!v) return std::nullopt;
        r.hi = before(*v);
    } else if (auto dash = text.find('-'); dash != std::string_view::npos) {
        r.lo = parse_version(text.substr(0, dash));
        r.hi = parse_version(text.substr(dash + 1));
        if (!r.lo || !r.hi) return std::nullopt;
    } else {
        auto v = parse_version(text);
        if (!v) return std::nullopt;
        r.lo = r.hi = v;
    }
    if (r.empty()) return std::nullopt;
    return r;
}

bool VersionRange::within(const VersionRange& o) const {
    bool lo_ok = !o.lo || (lo && *o.lo <= *lo);
    bool hi_ok = !o.hi || (hi && *hi <= *o.hi);
    return lo_ok && hi_ok;
}

bool VersionRange::disjoint(const VersionRange& o) const { return intersect(o).empty(); }

VersionRange VersionRange::intersect(const VersionRange& o) const {
    VersionRange r;
    r.lo = !lo ? o.lo : !o.lo ? lo : std::max(*lo, *o.lo);
    r.hi = !hi ? o.hi : !o.hi ? hi : std::min(*hi, *o.hi);
    return r;
}

std::string VersionRange::str() const {
    auto show_hi = [](Version v) {
        return v.minor == kAnyMinor ? "<" + Version{v.major + 1, 0}.str() : "<=" + v.str();
    };
    if (lo && hi) {
        if (*lo == *hi) return lo->str();
        std::string h = hi->minor == kAnyMinor ? std::to_string(hi->major) + ".x" : hi->str();
        return lo->str() + "-" + h;
    }
    if (lo) return ">=" + lo->str();
    if (hi) return show_hi(*hi);
    return "any";
}

}  // namespace denpex
