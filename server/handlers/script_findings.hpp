// LSP views of the launch-script check: the Warning diagnostics and the WorkspaceEdit of the quick-fix.
//
// Contract (pure). `script_diagnostics` gives one Warning per launch site, on the whole launch line, with
// code "missing-async-error-handling" (or "async-error-handling-disabled" on the line that sets it to 0), source "denpex", a link to PyTorch's NCCL environment-variable docs,
// and data {command} naming the server command that fixes it. `workspace_edit` turns byte-offset insertions
// into TextEdits (empty ranges) in the negotiated encoding: as `documentChanges` with the document's version
// when the client supports it — so a stale document is refused rather than corrupted — else as `changes`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/handlers/documents.hpp"
#include "server/launch_scripts/async_error_handling.hpp"

namespace denpex::server {

inline constexpr const char* kAsyncErrorHandlingCode = "missing-async-error-handling";
inline constexpr const char* kAsyncErrorHandlingDisabledCode = "async-error-handling-disabled";

nlohmann::json script_diagnostics(const Document& doc, const AsyncErrorHandlingCheck& check, PositionEncoding enc);

// `version` nullopt: a file that is not open (the edit then uses `changes`).
nlohmann::json workspace_edit(const std::string& uri, const LineIndex& lines, std::optional<std::int64_t> version,
                              const std::vector<Insertion>& edits, PositionEncoding enc, bool document_changes);

}  // namespace denpex::server
