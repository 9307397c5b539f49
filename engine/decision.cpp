#include "engine/decision.hpp"

#include <algorithm>

namespace denpex {

std::string_view to_string(Confidence c) {
    switch (c) {
        case Confidence::low: return "low";
        case Confidence::medium: return "medium";
        case Confidence::high: return "high";
    }
    return "low";
}

std::string_view to_string(Strategy s) {
    switch (s) {
        case Strategy::initiating_event: return "initiating-event";
        case Strategy::silent_rank: return "silent-rank";
        case Strategy::sequence_lag: return "sequence-lag";
        case Strategy::desync_report: return "desync-report";
        case Strategy::agent_first_exit: return "agent-first-exit";
        case Strategy::mismatch_minority: return "mismatch-minority";
        case Strategy::own_end: return "own-end";
        case Strategy::work_minority: return "work-minority";
        case Strategy::mismatch_named: return "mismatch-named";
        case Strategy::idle_gpu: return "idle-gpu";
        case Strategy::first_transport_fault: return "first-transport-fault";
    }
    return "initiating-event";
}

bool corroborates(Support s) {
    return s != Support::silence && s != Support::order && s != Support::utilization;
}

namespace {

// The strongest suspect that is not a consequence of the stall, the earliest listed among equals.
std::optional<std::size_t> pick_lead(const JobFacts& f) {
    std::optional<std::size_t> lead;
    for (std::size_t i = 0; i < f.suspects.size(); ++i) {
        if (f.suspects[i].consequence) continue;
        if (!lead || f.suspects[i].strength > f.suspects[*lead].strength) lead = i;
    }
    return lead;
}

Confidence calibrate(const JobFacts& f, const Decision& d) {
    std::set<Support> kinds;
    bool inferred = false;
    for (std::size_t i : d.agreeing) {
        kinds.insert(f.suspects[i].support.begin(), f.suspects[i].support.end());
        inferred = inferred || f.suspects[i].rank_inferred;
    }
    const auto corroborating = std::count_if(kinds.begin(), kinds.end(), corroborates);
    Confidence c = corroborating >= 2 ? Confidence::high : corroborating == 1 ? Confidence::medium : Confidence::low;
    if (c == Confidence::high && (f.unseen_ranks > 0 || inferred)) c = Confidence::medium;
    return c;
}

MissingFact missing_without_suspect(const JobFacts& f) {
    if (f.ranks_disagree) return MissingFact::divergent_rank;
    if (f.unranked_failure) return MissingFact::unranked_process;
    if (f.unordered_failures) return MissingFact::order_of_failures;
    if (f.sequences_diverged) return MissingFact::diverged_path;
    return MissingFact::collateral_only;
}

}  // namespace

Decision decide(const JobFacts& f) {
    Decision d;
    for (std::size_t i = 0; i < f.suspects.size(); ++i)
        if (f.suspects[i].consequence) d.consequences.push_back(i);
    if (!f.any_failure && f.suspects.empty()) return d;

    if (f.transport_on_loopback) {
        // Every failure is a connection between nodes that the setting makes impossible: the first rank to fail only
        // noticed first.
        d.outcome = Outcome::systemic;
        d.confidence = f.unseen_ranks > 0 ? Confidence::low : Confidence::medium;
        return d;
    }
    const std::optional<std::size_t> lead = pick_lead(f);
    if (!lead) {
        if (!f.ranks_disagree && (f.systemic || f.after_finish || f.no_node_served_store || f.private_rendezvous ||
                                  f.timeout_too_short || f.overfull_world)) {
            d.outcome = Outcome::systemic;
            d.confidence = Confidence::medium;
            if (f.outside_end_without_workers) {
                d.confidence = Confidence::low;
                d.missing = MissingFact::workers_output;
            }
            if (f.systemic_inferred) d.confidence = Confidence::low;
            // The same error on every rank here says little of the ranks not here: one of them may have failed first
            // and these errors be how the others saw it, in words the knowledge does not know as collateral. (The
            // job-wide facts are read from the launch itself and stand without them.)
            const bool job_wide_fact = f.no_node_served_store || f.private_rendezvous || f.timeout_too_short ||
                                       f.overfull_world;
            if (f.unseen_ranks > 0 && !job_wide_fact) d.confidence = Confidence::low;
            return d;
        }
        if (!f.ranks_disagree && (f.first_collective_hung || f.duplicate_ranks || f.one_peer_unreachable)) {
            d.outcome = Outcome::systemic;
            d.confidence = Confidence::low;
            return d;
        }
        d.outcome = Outcome::undetermined;
        d.missing = missing_without_suspect(f);
        return d;
    }
    const Suspect& l = f.suspects[*lead];
    d.agreeing.push_back(*lead);
    for (std::size_t i = 0; i < f.suspects.size(); ++i) {
        const Suspect& s = f.suspects[i];
        if (i == *lead || s.consequence) continue;
        if (s.target == l.target) d.agreeing.push_back(i);
        else if (s.strength >= Strength::medium) d.disagreeing.push_back(i);
    }
    if (!d.disagreeing.empty()) {
        d.outcome = Outcome::undetermined;
        d.missing = MissingFact::signals_disagree;
        return d;
    }
    d.outcome = Outcome::determined;
    d.lead = lead;
    d.confidence = calibrate(f, d);
    return d;
}

}  // namespace denpex
