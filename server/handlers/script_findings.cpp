#include "server/handlers/script_findings.hpp"

#include "server/handlers/commands.hpp"
#include "server/protocol/lsp_types.hpp"

namespace denpex::server {

using nlohmann::json;

json script_diagnostics(const Document& doc, const AsyncErrorHandlingCheck& check, PositionEncoding enc) {
    json out = json::array();
    for (const LaunchSite& site : check.sites) {
        auto r = doc.lines.engine_line_range(site.line + 1, enc);
        if (!r) continue;
        out.push_back({{"range", to_json(*r)},
                       {"severity", severity::warning},
                       {"source", "denpex"},
                       {"code", check.disabled ? kAsyncErrorHandlingDisabledCode : kAsyncErrorHandlingCode},
                       {"codeDescription", {{"href", "https://pytorch.org/docs/stable/torch_nccl_environment_variables.html"}}},
                       {"message", check.message},
                       {"data", {{"command", kInsertAsyncErrorHandlingCommand}, {"launcher", site.launcher}}}});
    }
    return out;
}

json workspace_edit(const std::string& uri, const LineIndex& lines, std::optional<std::int64_t> version,
                    const std::vector<Insertion>& edits, PositionEncoding enc, bool document_changes) {
    json text_edits = json::array();
    for (const Insertion& e : edits) {
        const Position p = lines.position_of(e.offset, enc);
        const Position end = e.replace ? lines.position_of(e.offset + e.replace, enc) : p;
        text_edits.push_back({{"range", to_json(Range{p, end})}, {"newText", e.text}});
    }
    if (document_changes && version)
        return {{"documentChanges",
                 json::array({{{"textDocument", {{"uri", uri}, {"version", *version}}}, {"edits", text_edits}}})}};
    return {{"changes", {{uri, text_edits}}}};
}

}  // namespace denpex::server
