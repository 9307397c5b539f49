// The text of a log line as shown in evidence: cut to a readable length on a UTF-8 boundary, trailing
// spaces dropped. Evidence points at file:line, so the full line is always one click away.
#pragma once

#include <string>
#include <string_view>

namespace denpex {

constexpr std::size_t kEvidenceChars = 400;

// Writes into `out`, reusing its capacity: the collector keeps every worker's latest line this way without an
// allocation per log line.
inline void assign_evidence_text(std::string& out, std::string_view text) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    if (text.size() <= kEvidenceChars) {
        out.assign(text);
        return;
    }
    std::size_t cut = kEvidenceChars;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;   // not inside a character
    out.assign(text.substr(0, cut));
    out += "…";
}

// A short quote of a line inside a sentence: cut at a word boundary when one is near the limit, never inside
// a UTF-8 character (the report is JSON, which must stay valid UTF-8), marked with "…" when shortened.
inline std::string excerpt(std::string_view text, std::size_t max_bytes) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    if (text.size() <= max_bytes) return std::string(text);
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    if (std::size_t space = text.rfind(' ', cut); space != std::string_view::npos && space > cut * 3 / 4) cut = space;
    return std::string(text.substr(0, cut)) + "…";
}

inline std::string evidence_text(std::string_view text) {
    std::string out;
    assign_evidence_text(out, text);
    return out;
}

}  // namespace denpex
