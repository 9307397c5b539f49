#include "server/handlers/log_diagnostics.hpp"

#include <set>

#include "server/handlers/knowledge_links.hpp"
#include "server/protocol/lsp_types.hpp"
#include "server/protocol/uri.hpp"

namespace denpex::server {

using nlohmann::json;

std::string initiator_name(const Diagnosis& d) {
    if (d.initiating_rank) return "rank " + std::to_string(*d.initiating_rank);
    if (!d.initiating_process.empty()) return d.initiating_process;
    return "an undetermined rank";
}

namespace {

std::string title(const Entry* e) { return e ? e->title : std::string("an unknown failure"); }

json base_diagnostic(const Range& r, int severity, const Entry* entry, const std::string& message, const char* role,
                     const std::optional<int>& rank) {
    json d = {{"range", to_json(r)}, {"severity", severity}, {"source", "denpex"}, {"message", message}};
    if (entry) {
        d["code"] = entry->id;
        if (auto href = entry_reference(*entry)) d["codeDescription"] = {{"href", *href}};
    }
    d["data"] = {{"failure", entry ? json(entry->id) : json(nullptr)}, {"role", role},
                 {"rank", rank ? json(*rank) : json(nullptr)}};
    return d;
}

}  // namespace

LogFindings log_findings(const Report& report, const std::string& uri, const LineIndex& lines,
                         PositionEncoding encoding, std::size_t max_diagnostics, const LineLocator& elsewhere) {
    LogFindings out;
    std::set<std::uint64_t> used;
    auto add = [&](std::uint64_t line, json d) {
        if (out.diagnostics.size() >= max_diagnostics || !used.insert(line).second) return;
        out.diagnostics.push_back(std::move(d));
    };

    for (const Diagnosis& d : report.diagnoses) {
        const std::string who = initiator_name(d);
        const std::string what = title(d.failure);
        const Evidence* first = d.evidence.empty() ? nullptr : &d.evidence.front();

        // Where the initiating line is, as text and as a location.
        std::string at;
        std::optional<Location> origin;
        if (first) {
            if (first->file == uri) {
                at = "line " + std::to_string(first->line);
                if (auto r = lines.engine_line_range(first->line, encoding)) origin = Location{uri, *r};
            } else {
                at = uri_basename(first->file) + ":" + std::to_string(first->line);
                if (elsewhere) origin = elsewhere(first->file, first->line);
            }
        }

        for (std::size_t k = 0; k < d.evidence.size(); ++k) {
            const Evidence& ev = d.evidence[k];
            if (ev.file != uri) continue;
            auto r = lines.engine_line_range(ev.line, encoding);
            if (!r) continue;
            if (k == 0) {
                std::string msg;
                if (d.rank_not_applicable) msg = what + " (initiating; not one rank's failure: it affects every rank)";
                else if (d.undetermined || (!d.initiating_rank && d.initiating_process.empty()))
                    msg = what + " (initiating rank undetermined" +
                          (d.missing.empty() ? std::string(")") : "; missing: " + d.missing.front() + ")");
                else
                    msg = what + " on " + who + (d.initiating_host ? " (" + *d.initiating_host + ")" : std::string()) +
                          " (initiating: this rank failed first; confidence " + d.confidence + ")";
                add(ev.line, base_diagnostic(*r, severity::error, d.failure, msg, "initiating", d.initiating_rank));
                out.notes.emplace(ev.line, "In this log: **initiating** — " + who + "'s " + what +
                                               " (confidence " + d.confidence + "); the other ranks' errors follow "
                                               "from it.");
            } else {
                json diag = base_diagnostic(*r, severity::information, d.failure,
                                            "evidence of " + who + "'s " + what + " (initiating" +
                                                (at.empty() ? std::string(")") : ", first at " + at + ")"),
                                            "initiating", d.initiating_rank);
                if (origin)
                    diag["relatedInformation"] = json::array(
                        {{{"location", to_json(*origin)}, {"message", who + "'s " + what + " (initiating)"}}});
                add(ev.line, std::move(diag));
                out.notes.emplace(ev.line, "In this log: evidence of **" + who + "'s " + what + "** (initiating).");
            }
        }

        for (const CollateralRank& c : d.collateral) {
            for (const Evidence& ev : c.evidence) {
                if (ev.file != uri) continue;
                auto r = lines.engine_line_range(ev.line, encoding);
                if (!r) continue;
                std::string cause = who + "'s " + what + (at.empty() ? std::string() : " at " + at);
                std::string self = (c.failure ? c.failure->title : std::string("an error")) + " on " + c.process;
                std::string msg = d.undetermined ? "collateral: a consequence of " + what + "; the initiating rank is "
                                                   "undetermined (this line: " + self + ")"
                                                 : "collateral: caused by " + cause + " (this line: " + self + ")";
                json diag = base_diagnostic(*r, severity::information, c.failure ? c.failure : d.failure, msg,
                                            "collateral", c.rank);
                if (origin)
                    diag["relatedInformation"] = json::array(
                        {{{"location", to_json(*origin)}, {"message", who + "'s " + what + " (initiating)"}}});
                add(ev.line, std::move(diag));
                out.notes.emplace(ev.line, "In this log: **collateral** — caused by " + cause + ".");
            }
        }
    }
    return out;
}

}  // namespace denpex::server
