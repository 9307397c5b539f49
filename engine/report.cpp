#include "engine/report.hpp"

#include <algorithm>
#include <sstream>

#include "engine/wording.hpp"

namespace denpex {
namespace {

using nlohmann::json;

json opt(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }
json opt(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

json evidence_json(const Evidence& e) { return {{"file", e.file}, {"line", e.line}, {"text", e.text}}; }

json entry_json(const Entry* e) {
    if (!e) return nullptr;
    return {{"id", e->id}, {"title", e->title}, {"category", e->category}, {"severity", e->severity}};
}

std::string where(const Evidence& e) { return e.file + ":" + std::to_string(e.line); }

json stacks_json(const std::vector<Stack>& stacks) {
    json out = json::array();
    for (Stack s : stacks) out.push_back(std::string(to_string(s)));
    return out;
}

// The entry's stack fixes, those for the stacks the logs show first (in the report's order), each with whether
// the logs show its stack.
json stack_fixes_json(const Entry* e, const std::vector<Stack>& stacks) {
    json out = json::array();
    if (!e) return out;
    for (const StackFix* f : e->depth.ordered_for(stacks))
        out.push_back({{"stack", std::string(to_string(f->stack))}, {"names", f->names}, {"snippet", f->snippet},
                       {"versions", f->versions}, {"source", f->source},
                       {"in_logs", std::find(stacks.begin(), stacks.end(), f->stack) != stacks.end()}});
    return out;
}

// A snippet may span lines: every line after the first is indented under the first.
std::string indented(const std::string& text, const std::string& indent) {
    std::string out;
    for (char c : text) {
        out += c;
        if (c == '\n') out += indent;
    }
    return out;
}

// "Fix in your stack": the fixes for the stack the logs show first, in full; then the other stacks' one per line.
void stack_fixes_text(std::ostream& out, const Entry& e, const std::vector<Stack>& stacks) {
    const auto fixes = e.depth.ordered_for(stacks);
    if (fixes.empty()) return;
    auto shown = [&](Stack s) { return std::find(stacks.begin(), stacks.end(), s) != stacks.end(); };
    const bool any_shown = std::any_of(fixes.begin(), fixes.end(), [&](const StackFix* f) { return shown(f->stack); });
    if (any_shown) {
        out << "\nFix in your stack (the logs show " << display_name(stacks.front());
        for (std::size_t i = 1; i < stacks.size(); ++i) out << ", " << display_name(stacks[i]);
        out << ")\n";
    } else {
        out << "\nFix per stack\n";
    }
    bool others_header = false;
    for (const StackFix* f : fixes) {
        if (any_shown && !shown(f->stack) && !others_header) {
            out << "  Other stacks:\n";
            others_header = true;
        }
        const std::string lead = std::string(others_header ? "    " : "  ") + std::string(to_string(f->stack)) + ": ";
        out << lead << indented(f->snippet, std::string(lead.size(), ' '));
        if (!f->versions.empty()) out << "  (" << f->versions << ")";
        out << "\n";
    }
}

}  // namespace

json to_json(const Report& r) {
    json diagnoses = json::array();
    for (const Diagnosis& d : r.diagnoses) {
        json ev = json::array();
        for (const auto& e : d.evidence) ev.push_back(evidence_json(e));
        json collateral = json::array();
        for (const auto& c : d.collateral) {
            json cev = json::array();
            for (const auto& e : c.evidence) cev.push_back(evidence_json(e));
            collateral.push_back({{"rank", opt(c.rank)}, {"process", c.process}, {"host", opt(c.host)},
                                  {"failure_id", c.failure ? json(c.failure->id) : json(nullptr)}, {"evidence", cev}});
        }
        json fix = json::array();
        for (const auto& f : d.fix)
            fix.push_back({{"text", f.text}, {"env", f.env}, {"applies", f.applies}, {"why", f.why}});
        diagnoses.push_back({
            {"failure", entry_json(d.failure)},
            {"confidence", d.confidence},
            {"initiating",
             {{"rank", opt(d.initiating_rank)},
              {"process", d.initiating_process.empty() ? json(nullptr) : json(d.initiating_process)},
              {"host", opt(d.initiating_host)},
              {"time", opt(d.initiating_time)},
              {"evidence", ev}}},
            {"undetermined", d.undetermined},
            {"rank_not_applicable", d.rank_not_applicable},
            {"affected_ranks", d.affected_ranks},
            {"strategies", d.strategies},
            {"reasoning", d.reasoning},
            {"collateral", collateral},
            {"fix", fix},
            {"stack_fixes", stack_fixes_json(d.failure, r.stacks)},
            {"verify", d.verify},
            {"missing", d.missing},
            {"notes", d.notes},
        });
    }
    json ranks = json::array();
    for (const RankState& s : r.ranks)
        ranks.push_back({{"rank", opt(s.rank)}, {"process", s.process}, {"host", opt(s.host)}, {"state", s.state},
                         {"last_line", evidence_json(s.last_line)}});
    return {{"diagnoses", diagnoses},
            {"ranks", ranks},
            {"inputs", r.inputs},
            {"torch_versions", opt(r.torch_versions)},
            {"torchrun", r.torchrun},
            {"stacks", stacks_json(r.stacks)},
            {"world_size", opt(r.world_size)},
            {"bytes", r.bytes},
            {"lines", r.lines},
            {"warnings", r.warnings}};
}

std::string to_text(const Report& r) {
    std::ostringstream out;
    if (r.diagnoses.empty()) {
        out << "No failure found in " << r.inputs.size() << (r.inputs.size() == 1 ? " input" : " inputs") << " ("
            << r.lines << " lines).\n";
        return out.str();
    }
    for (const Diagnosis& d : r.diagnoses) {
        const std::string title = d.failure ? d.failure->title : "Unknown failure";
        out << "FAILURE     " << title;
        if (d.failure) out << "  [" << d.failure->id << ", " << d.failure->category << "]";
        out << "\n";
        out << "INITIATING  ";
        if (d.initiating_rank || !d.initiating_process.empty()) {
            out << (d.initiating_process.empty() ? "rank " + std::to_string(*d.initiating_rank) : d.initiating_process);
            if (d.initiating_host) out << " on " << *d.initiating_host;
            if (d.initiating_time) out << " at " << *d.initiating_time;
        } else if (d.rank_not_applicable) {
            out << (d.failure && d.failure->scope == "job" ? "not one rank's failure: a failure of the whole job"
                                                           : "not one rank's failure: the same error on every affected rank");
            if (!d.affected_ranks.empty()) out << " (" << ranks_phrase(d.affected_ranks) << ")";
            if (d.initiating_host) out << " on " << *d.initiating_host;
        } else {
            out << "undetermined";
            if (d.initiating_host) out << " (host " << *d.initiating_host << ")";
        }
        out << "\nCONFIDENCE  " << d.confidence;
        if (!d.strategies.empty()) {
            out << " (";
            for (std::size_t i = 0; i < d.strategies.size(); ++i) out << (i ? ", " : "") << d.strategies[i];
            out << ")";
        }
        out << "\n";
        if (!d.evidence.empty()) {
            out << "\nEvidence\n";
            for (const auto& e : d.evidence) out << "  " << where(e) << "  " << e.text << "\n";
        }
        if (!d.reasoning.empty()) {
            out << "\nWhy\n";
            for (const auto& s : d.reasoning) out << "  - " << s << "\n";
        }
        if (!d.missing.empty()) {
            out << (d.undetermined ? "\nMissing to decide\n" : "\nMissing\n");
            for (const auto& s : d.missing) out << "  - " << s << "\n";
        }
        if (!d.collateral.empty()) {
            out << "\nCollateral (" << d.collateral.size() << (d.collateral.size() == 1 ? " process" : " processes")
                << ", failed because of the above)\n";
            // Group processes by the collateral failure they show, so 63 identical timeouts are one line.
            std::vector<std::pair<const Entry*, std::vector<const CollateralRank*>>> groups;
            for (const auto& c : d.collateral) {
                auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == c.failure; });
                if (it == groups.end()) groups.push_back({c.failure, {&c}});
                else it->second.push_back(&c);
            }
            for (const auto& [entry, members] : groups) {
                out << "  " << (entry ? entry->title : "collateral error") << ": ";
                for (std::size_t i = 0; i < members.size(); ++i) {
                    if (i == 8) {
                        out << " and " << members.size() - 8 << " more";
                        break;
                    }
                    out << (i ? ", " : "") << members[i]->process;
                }
                out << "\n    e.g. " << where(members.front()->evidence.front()) << "  "
                    << members.front()->evidence.front().text << "\n";
            }
        }
        if (!d.fix.empty()) {
            out << "\nFix\n";
            bool not_needed_header = false;
            for (const auto& f : d.fix) {
                if (f.applies == "not needed here" && !not_needed_header) {
                    out << "  Not needed for these logs:\n";
                    not_needed_header = true;
                }
                out << (not_needed_header ? "    - " : "  - ") << f.text;
                if (f.applies != "yes" && f.applies != "not needed here") out << "  (" << f.applies << ")";
                out << "\n";
                if (!f.why.empty()) out << (not_needed_header ? "        " : "      ") << f.why << "\n";
            }
        }
        if (d.failure) stack_fixes_text(out, *d.failure, r.stacks);
        if (!d.verify.empty()) out << "\nVerify\n  $ " << d.verify << "\n";
        if (!d.notes.empty()) {
            out << "\nNotes\n";
            for (const auto& n : d.notes) out << "  - " << n << "\n";
        }
    }
    out << "\n" << r.inputs.size() << (r.inputs.size() == 1 ? " input, " : " inputs, ") << r.lines << " lines";
    if (r.torch_versions) out << "; message formats imply PyTorch " << *r.torch_versions;
    if (r.torchrun) out << "; launched by torchrun";
    out << "\n";
    return out.str();
}

}  // namespace denpex
