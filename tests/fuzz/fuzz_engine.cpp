// Fuzz target: the engine fed one or several in-memory files. The input is split into files at lines that start
// with "--8<-- " (the rest of that line names the next file); the report is then rendered as text and as JSON, as
// every surface does. A dictionary of real prefixes, timestamps and NCCL/PyTorch messages is in engine.dict.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "../unit/embedded_engine.hpp"
#include "engine/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kMarker = "--8<-- ";
    denpex::DiagnoseInput in;
    std::string name = "rank0.log", text;
    bool named = false;   // a marker started the current file
    std::size_t at = 0;
    while (at < input.size()) {
        const std::size_t nl = input.find('\n', at);
        const std::size_t end = nl == std::string_view::npos ? input.size() : nl + 1;
        const std::string_view line = input.substr(at, end - at);
        at = end;
        if (line.starts_with(kMarker) && in.texts.size() < 15) {
            if (named || !text.empty()) in.texts.emplace_back(name, std::move(text));
            text.clear();
            std::string_view n = line.substr(kMarker.size());
            if (n.ends_with('\n')) n.remove_suffix(1);
            name = std::string(n.substr(0, 128));
            named = true;
        } else {
            text += line;
        }
    }
    if (named || !text.empty()) in.texts.emplace_back(name, std::move(text));
    denpex::DiagnoseOptions options;
    options.mask.hosts = size % 2 == 1;   // both masking modes
    const denpex::Report report = engine().diagnose(in, options);
    const std::string shown = denpex::to_text(report);
    const std::string json = denpex::to_json(report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (shown.empty() || json.empty()) __builtin_trap();
    return 0;
}
