// Fuzz target: the knowledge loader fed a team entry (JSON text). An entry that loads is then compiled into a
// matcher beside the built-in knowledge, and its own example lines are matched, as `--knowledge DIR` would.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/knowledge.hpp"
#include "engine/matcher.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> problems;
    denpex::KnowledgeBase kb;
    if (!kb.add_json(text, "team/fuzz.json", problems)) return 0;
    // A second copy of the same entry is a duplicate: refused with a warning, never a replacement.
    if (kb.add_json(text, "team/fuzz-again.json", problems) || kb.warnings().empty()) __builtin_trap();
    denpex::Matcher matcher(kb, 4 << 20);
    for (const auto& e : kb.entries())
        for (const auto& s : e->signatures)
            for (const auto& line : s.examples) (void)matcher.match(line);
    return 0;
}
