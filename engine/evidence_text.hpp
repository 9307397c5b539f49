// The text of a log line as shown in evidence: cut to a readable length on a UTF-8 boundary, trailing
// spaces dropped. Evidence points at file:line, so the full line is always one click away.
#pragma once

#include <string>
#include <string_view>

namespace denpex {

constexpr std::size_t kEvidenceChars = 400;

inline std::string evidence_text(std::string_view text) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    if (text.size() <= kEvidenceChars) return std::string(text);
    std::size_t cut = kEvidenceChars;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;   // not inside a character
    return std::string(text.substr(0, cut)) + "…";
}

}  // namespace denpex
