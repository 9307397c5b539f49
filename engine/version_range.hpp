// Version ranges of PyTorch ("<2.0", ">=2.2", "1.13-2.4", "2.1"): parsed from knowledge data and
// intersected as evidence arrives. Versions are compared as (major, minor) only, which is the granularity at
// which message formats and defaults changed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace denpex {

struct Version {
    int major = 0, minor = 0;
    auto operator<=>(const Version&) const = default;
    std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
};

// [lo, hi] inclusive; an unset bound is open.
struct VersionRange {
    std::optional<Version> lo, hi;

    static std::optional<VersionRange> parse(std::string_view text);
    bool empty() const { return lo && hi && *hi < *lo; }
    bool contains(Version v) const { return (!lo || *lo <= v) && (!hi || v <= *hi); }
    // True when every version in *this is inside `other`.
    bool within(const VersionRange& other) const;
    // True when no version of *this is inside `other`.
    bool disjoint(const VersionRange& other) const;
    VersionRange intersect(const VersionRange& other) const;
    std::string str() const;
};

}  // namespace denpex
