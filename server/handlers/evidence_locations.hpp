// LSP locations for the evidence in the engine's JSON contract (the result of `denpex/diagnose`).
//
// Contract. Walks the JSON of denpex::to_json(report) and gives every evidence object ({"file", "line",
// "text"} — under initiating.evidence, collateral[].evidence and ranks[].last_line) a "location" {uri, range}
// when `resolve(file, line)` knows where that is — or only a "range" when the source has no URI (a text
// handed over in the request: the range is relative to that text). The engine's fields are left untouched,
// so the result is still the engine's contract plus locations. The resolver decides per source: an open
// document gives an exact whole-line range in the negotiated encoding, a file on disk its file:// URI and the
// range from the line's start to the next line's start (its length is unknown without reading it again).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "server/protocol/lsp_types.hpp"

namespace denpex::server {

// `uri` empty: the location has no document, only a range.
using EvidenceResolver = std::function<std::optional<Location>(const std::string& file, std::uint64_t line)>;

void add_evidence_locations(nlohmann::json& report, const EvidenceResolver& resolve);

}  // namespace denpex::server
