// Fuzz target: the partial-model decoder (engine/partial_model.hpp) fed a file that `denpex diagnose` would take
// for a partial. Its contract: never throws, never trusts the file. A partial that decodes must also survive what
// diagnose does with it (merge, conclusion, reasoning, both views), and encoding what was decoded must give a
// partial that decodes again to the same encoding: the codec does not lose or invent state on a round trip.
// Seeds (corpus/partial) are `denpex scan --partial` outputs of corpus cases with the knowledge digest replaced by
// @KNOWLEDGE@, which the target puts back: a partial of other knowledge is refused, and the seeds must not go stale
// each time an entry changes. partial.dict holds the format's keys.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "../unit/embedded_engine.hpp"
#include "engine/partial_model.hpp"
#include "engine/report.hpp"

namespace {
const denpex::PartialCodec& codec() {
    static const denpex::PartialCodec c(engine().knowledge());
    return c;
}

std::string with_digest(std::string_view input) {
    constexpr std::string_view kToken = "@KNOWLEDGE@";
    std::string text(input);
    for (std::size_t at = text.find(kToken); at != std::string::npos; at = text.find(kToken, at + 1))
        text.replace(at, kToken.size(), codec().knowledge_digest());
    return text;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = with_digest(std::string_view(reinterpret_cast<const char*>(data), size));
    denpex::DecodedPartial decoded = codec().decode(text);
    if (!decoded.timeline) {
        if (decoded.error.empty() || decoded.error.find('\n') != std::string::npos) __builtin_trap();   // one line
        return 0;
    }
    const std::string once = codec().encode(*decoded.timeline, decoded.origin);
    const denpex::DecodedPartial again = codec().decode(once);
    if (!again.timeline || codec().encode(*again.timeline, again.origin) != once) __builtin_trap();

    denpex::DiagnoseInput in;
    in.partials.push_back(std::move(*decoded.timeline));
    const denpex::Report report = engine().diagnose(in);
    const std::string shown = denpex::to_text(report);
    const std::string json = denpex::to_json(report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (shown.empty() || json.empty()) __builtin_trap();
    return 0;
}
