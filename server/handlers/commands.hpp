// Command ids the server executes (workspace/executeCommand). They are distinct from the VS Code client's own
// `denpex.*` commands because vscode-languageclient registers every id the server announces as an editor
// command, and registering one twice fails.
#pragma once

namespace denpex::server {

inline constexpr const char* kInsertAsyncErrorHandlingCommand = "denpex.server.insertAsyncErrorHandling";
inline constexpr const char* kDiagnoseCommand = "denpex.server.diagnose";
// [{"uris": [...]}]: these log documents are one job (diagnosed together); fewer than two URIs unmark them.
inline constexpr const char* kMarkJobCommand = "denpex.server.markJob";

}  // namespace denpex::server
