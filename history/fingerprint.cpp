#include "history/fingerprint.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include <re2/re2.h>

#include "engine/secret_mask.hpp"

namespace denpex {
namespace {

void replace_all(std::string& text, const std::string& from, const std::string& to) {
    if (from.empty()) return;
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

void collapse_spaces(std::string& text) {
    std::string out;
    out.reserve(text.size());
    bool space = false;
    for (char c : text) {
        const bool is_space = c == ' ' || c == '\t';
        if (is_space && (space || out.empty())) continue;
        out += is_space ? ' ' : c;
        space = is_space;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    text = std::move(out);
}

std::uint64_t fnv1a(std::string_view data, std::uint64_t h = 1469598103934665603ull) {
    for (unsigned char c : data) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

// Runs of 8+ hex digits that hold a digit (an id, an address without 0x) become <hex>; words such as
// "deadbeef" or "accepted" stay words.
std::string abstract_long_hex(const std::string& text) {
    static const RE2 long_hex(R"(\b([0-9a-fA-F]{8,})\b)");
    std::string kept;
    re2::StringPiece rest(text), hit;
    while (!rest.empty()) {
        const char* before = rest.data();
        if (!RE2::FindAndConsume(&rest, long_hex, &hit)) break;
        kept.append(before, static_cast<std::size_t>(hit.data() - before));
        const bool has_digit = std::any_of(hit.begin(), hit.end(), [](char c) { return c >= '0' && c <= '9'; });
        kept += has_digit ? std::string("<hex>") : std::string(hit.data(), hit.size());
    }
    kept.append(rest.data(), rest.size());
    return kept;
}

}  // namespace

std::string normalise_evidence(std::string_view raw, const std::vector<std::string>& hosts) {
    static const RE2 ipv4(R"(\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b)");
    static const RE2 path(R"((^|[\s"'=(\[,])(?:~|\.{1,2})?/[^\s"':,()\[\]]*)");
    static const RE2 hex_prefixed(R"(\b0[xX][0-9a-fA-F]+\b)");
    static const RE2 number(R"(\d+(?:\.\d+)?)");
    std::string text = mask_secrets(raw);
    for (const auto& h : hosts) replace_all(text, h, "<host>");
    RE2::GlobalReplace(&text, ipv4, "<ip>");
    RE2::GlobalReplace(&text, path, "\\1<path>");
    RE2::GlobalReplace(&text, hex_prefixed, "<hex>");
    text = abstract_long_hex(text);
    RE2::GlobalReplace(&text, number, "#");
    collapse_spaces(text);
    return text;
}

std::vector<std::string> report_hosts(const Report& report) {
    std::vector<std::string> hosts;
    for (const auto& d : report.diagnoses) {
        if (d.initiating_host) hosts.push_back(*d.initiating_host);
        for (const auto& c : d.collateral)
            if (c.host) hosts.push_back(*c.host);
    }
    for (const auto& r : report.ranks)
        if (r.host) hosts.push_back(*r.host);
    std::sort(hosts.begin(), hosts.end(), [](const auto& a, const auto& b) {
        return a.size() != b.size() ? a.size() > b.size() : a < b;
    });
    hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
    hosts.erase(std::remove(hosts.begin(), hosts.end(), std::string()), hosts.end());
    return hosts;
}

std::vector<std::string> fingerprint_lines(const Diagnosis& d, const std::vector<std::string>& hosts) {
    std::vector<std::string> lines;
    for (const auto& e : d.evidence) lines.push_back(normalise_evidence(e.text, hosts));
    if (lines.empty())
        for (const auto& c : d.collateral)
            for (const auto& e : c.evidence) lines.push_back(normalise_evidence(e.text, hosts));
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    return lines;
}

std::string failure_fingerprint(const Diagnosis& d, const std::vector<std::string>& hosts) {
    std::uint64_t h = fnv1a(d.failure ? d.failure->id : std::string("unknown"));
    for (const auto& line : fingerprint_lines(d, hosts)) h = fnv1a(line, fnv1a("\n", h));
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

}  // namespace denpex
