// SARIF 2.1.0 view of a Report (`denpex diagnose --sarif`), for CI systems and code-review tools.
//
// Contract. One run. tool.driver: name "denpex", version, and one rule per knowledge entry the report uses
// (each diagnosis's failure, then the collateral failures), with the entry's title, what it is and its
// category / severity. One result per diagnosis, the leading one first:
//   - ruleId (and ruleIndex) = the failure id; level by confidence: high "error", medium "warning", low "note";
//   - locations: the initiating evidence lines (artifactLocation.uri = the log file as the user named it,
//     percent-encoded, `file://` for an absolute path; region.startLine; the line's text as region.snippet);
//   - relatedLocations: each collateral process's first evidence line, its message naming the process;
//   - an undetermined verdict is a result of level "note" whose message says the missing fact;
//   - partialFingerprints["denpexFailure/v1"] = history/fingerprint.hpp's fingerprint; properties: confidence,
//     initiating, strategies, undetermined, missing.
// Log text comes only from the Report, which the engine has already masked (engine/secret_mask.hpp): SARIF
// shows exactly what the text and JSON views show. No network: "$schema" is a name, never fetched.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/diagnosis.hpp"

namespace denpex::cli {

// A file name as a SARIF artifactLocation uri.
std::string sarif_uri(std::string_view file);

nlohmann::json to_sarif(const Report& report, const std::string& tool_version);

}  // namespace denpex::cli
