// A log document's diagnostics, from the engine's Report on that document.
//
// Contract (pure). For every Diagnosis whose evidence lies in the document (`uri` is the name the text was
// diagnosed under): the initiating line becomes an Error naming the failure and the process ("CUDA out of
// memory on rank 5 (initiating)"); further initiating evidence lines and every collateral line become
// Information whose relatedInformation points at the initiating line ("collateral: caused by rank 5's CUDA
// out of memory at line 812"). Each carries code = the entry id, source "denpex", codeDescription.href = the
// entry's reference (when it has one), and data {failure, role, rank}. Ranges are whole lines in `encoding`.
// A line gets at most one diagnostic (the first, most severe wins). `notes` says, per engine line, what the
// line is in this log, for hovers.
//
// One job, several documents. The report may span the open documents of one job (server/handlers/log_jobs.hpp):
// `elsewhere(file, line)` locates an evidence line of another document of the job, so a collateral line in
// node0.log links (relatedInformation) to the initiating line in node1.log. Without it, or when it knows nothing
// of that file, the link is left out and the message names "node1.log:812" in words.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/diagnosis.hpp"
#include "server/protocol/line_index.hpp"
#include "server/protocol/lsp_types.hpp"

namespace denpex::server {

struct LogFindings {
    nlohmann::json diagnostics = nlohmann::json::array();
    std::map<std::uint64_t, std::string> notes;   // engine line (1-based) -> markdown sentence
};

// Where an engine line (file = the name it was diagnosed under, 1-based line) of another document is.
using LineLocator = std::function<std::optional<Location>(const std::string& file, std::uint64_t line)>;

LogFindings log_findings(const Report& report, const std::string& uri, const LineIndex& lines,
                         PositionEncoding encoding, std::size_t max_diagnostics = 1000,
                         const LineLocator& elsewhere = {});

// How a Diagnosis names its initiating process: "rank 5", "local rank 1 of node1.log", "an undetermined rank".
std::string initiator_name(const Diagnosis& d);

}  // namespace denpex::server
