#include "engine/version_range.hpp"

#include <charconv>

namespace denpex {
namespace {

constexpr int kAnyMinor = 9999;   // "1.x": the last minor of a major, so "<2.0" is "<=1.x"

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

std::optional<Version> parse_version(std::string_view s) {
    s = trim(s);
    Version v;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v.major);
    if (ec != std::errc() || p == s.data()) return std::nullopt;
    if (p == s.data() + s.size()) return v;
    if (*p != '.') return std::nullopt;
    ++p;
    auto [q, ec2] = std::from_chars(p, s.data() + s.size(), v.minor);
    if (ec2 != std::errc() || q == p) return std::nullopt;
    // Patch levels ("2.1.2") do not change message formats; ignore them.
    if (q != s.data() + s.size() && *q != '.') return std::nullopt;
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
