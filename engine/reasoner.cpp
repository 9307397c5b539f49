#include "engine/reasoner.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <sstream>
#include <tuple>

#include "engine/evidence_text.hpp"
#include "engine/job_topology.hpp"
#include "engine/process_table.hpp"
#include "engine/fix_advice.hpp"
#include "engine/strategies.hpp"
#include "engine/time_order.hpp"
#include "engine/wording.hpp"

namespace denpex {
namespace {

bool in_list_int(const std::vector<int>& list, int v) { return std::find(list.begin(), list.end(), v) != list.end(); }

bool in_list(const std::vector<std::string>& list, const std::string& id) {
    return std::find(list.begin(), list.end(), id) != list.end();
}

// --- assembling the diagnosis ---------------------------------------------------------------------------

const Entry* scenario_for(const KnowledgeBase& kb, const Entry* initiating, const std::set<const Entry*>& collateral) {
    for (const auto& e : kb.entries()) {
        if (!e->scenario || !in_list(e->scenario->initiating, initiating->id)) continue;
        for (const Entry* c : collateral)
            if (in_list(e->scenario->collateral, c->id)) return e.get();
    }
    return nullptr;
}

const Entry* verdict_entry(const KnowledgeBase& kb, const std::string& strategy) {
    for (const auto& e : kb.entries())
        if (in_list(e->verdicts, strategy)) return e.get();
    return nullptr;
}


std::vector<std::string> search_terms(const std::vector<const Entry*>& entries) {
    std::vector<std::string> out;
    for (const Entry* e : entries)
        for (const auto& term : e->look_for)
            if (!in_list(out, term) && out.size() < 5) out.push_back(term);
    if (out.empty()) out = {"Traceback", "Error", "exitcode"};
    return out;
}

Evidence evidence_of(const Event& e) { return e.evidence; }

int severity_level(const Entry& e) {
    if (e.severity == "critical") return 3;
    if (e.severity == "error") return 2;
    if (e.severity == "warning") return 1;
    return 0;
}

// "host gpu-node-01, the MASTER_ADDR" for the hosts the logs name that have no log here: the launchers'
// own statements (MASTER_ADDR, DeepSpeed's rank mapping) and the peers collateral errors blame.
std::string describe_absent_hosts(const ProcessTable& table, const Timeline& t, const std::vector<int>& unseen) {
    std::set<std::string> present;
    for (const Process& p : table.processes())
        for (const auto& h : p.hosts) present.insert(h);
    for (const Group& g : t.groups)
        for (const auto& h : g.hosts) present.insert(h);
    std::map<std::string, std::string> why;   // host -> how the logs name it
    for (const auto& [host, ranks] : t.topology.host_ranks) {
        if (present.count(host)) continue;
        bool runs_unseen = std::any_of(ranks.begin(), ranks.end(), [&](int r) { return in_list_int(unseen, r); });
        if (!ranks.empty() && !runs_unseen) continue;
        why[host] = t.topology.masters.count(host) ? "the MASTER_ADDR" : ranks.empty() ? "named by the launcher"
                                                                                        : "where those ranks ran";
    }
    for (const Process& p : table.processes())
        for (const Event* e : p.collateral)
            if (auto it = e->captures.find("peer"); it != e->captures.end()) {
                std::string h = host_of_peer(it->second);
                if (!h.empty() && !present.count(h) && !why.count(h)) why[h] = "the peer these errors name";
            }
    if (why.empty()) return {};
    std::string s;
    std::size_t i = 0;
    for (const auto& [host, reason] : why) {
        if (i++) s += ", ";
        if (i > 4) { s += "and more"; break; }
        s += "host " + host + ", " + reason;
    }
    return s;
}

}  // namespace

Report reason(const Timeline& t, const KnowledgeBase& kb) {
    Report report;
    report.inputs = t.sources;
    report.torchrun = t.torchrun;
    report.bytes = t.bytes;
    report.lines = t.lines;
    report.warnings = t.warnings;
    if (t.torch_known) report.torch_versions = t.torch.str();

    ProcessTable table(t);
    std::optional<int> world = table.world_size();
    report.world_size = world;
    if (!table.foreign_gpu_events().empty()) {
        const Evidence& ev = table.foreign_gpu_events().front()->evidence;
        report.warnings.push_back(std::to_string(table.foreign_gpu_events().size()) +
                                  " kernel line(s) about a GPU and a process that are not this job's (no NCCL line names "
                                  "that bus id or pid) were left out, e.g. " + ev.file + ":" + std::to_string(ev.line));
    }

    // Nothing failed at all: no diagnosis.
    bool any_failure = false;
    for (const Process& p : table.processes())
        if (!p.events_with_role(Role::initiating).empty() || !p.collateral.empty()) any_failure = true;

    Diagnosis d;
    InitiatingResult init = initiating_event_strategy(table);
    std::vector<Candidate> candidates;
    if (init.candidate) candidates.push_back(*init.candidate);
    if (auto c = silent_rank_strategy(table, t, world)) candidates.push_back(*c);
    if (auto c = sequence_lag_strategy(table)) candidates.push_back(*c);
    if (auto c = desync_strategy(table)) candidates.push_back(*c);
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.strength > b.strength; });

    // The agent's first exit is weak: it decides only when nothing else does, and otherwise only supports.
    // An error printed without a rank, on a node whose agent names one worker as its first failure (and
    // SIGTERMed the rest), is that worker's: the agent's line gives the rank, the unprefixed line the failure.
    const Event* adopted = nullptr;
    if (auto c = agent_first_exit_strategy(table, t)) {
        bool nothing_else = candidates.empty() && init.systemic.empty() && init.unordered.empty() && init.unranked.empty();
        bool supports = !candidates.empty() && c->process == candidates.front().process;
        bool explains_unranked = candidates.empty() && init.unranked.size() == 1 &&
                                 init.unranked.front()->group == c->process->group;
        if (explains_unranked) {
            adopted = init.unranked.front()->first_initiating();
            c->strength = 2;
            c->evidence.push_back(adopted);
            c->reason += " The only error of its node, \"" + excerpt(adopted->evidence.text, 100) +
                         "\", is printed without a rank, so it is taken as that worker's.";
            init.unranked.clear();
        }
        if (nothing_else || supports || explains_unranked) candidates.push_back(*c);
    }
    for (Candidate& c : candidates)
        if (c.process && c.process->rank) c.rank = c.process->rank;
    auto same_target = [](const Candidate& a, const Candidate& b) {
        if (a.rank && b.rank) return *a.rank == *b.rank;
        return a.process == b.process && a.process != nullptr;
    };

    const Candidate* lead = nullptr;
    if (!candidates.empty()) {
        lead = &candidates.front();
        int agree = 0, disagree = 0;
        for (const Candidate& c : candidates) {
            if (same_target(c, *lead)) {
                ++agree;
                d.strategies.push_back(c.strategy);
                d.reasoning.push_back(c.reason);
            } else {
                ++disagree;
                d.reasoning.push_back("Against this: " + c.reason);
            }
        }
        if (disagree > 0 && lead->strength <= 2) {
            // Two medium signals pointing at different ranks: no confident answer.
            lead = nullptr;
            d.strategies.clear();
        } else {
            d.confidence = (lead->strength >= 3 && disagree == 0) || agree >= 2 ? "high" : "medium";
            if (disagree > 0) d.confidence = "low";
        }
    }
    const Process* chosen = lead ? lead->process : nullptr;

    std::set<const Entry*> collateral_kinds;
    for (const Process& p : table.processes())
        for (const Event* e : p.collateral) collateral_kinds.insert(e->signature->entry);

    std::vector<int> unseen = table.unseen_ranks(world);

    if (lead) {
        d.initiating_rank = lead->rank;
        d.initiating_process = chosen ? chosen->name() : "rank " + std::to_string(*lead->rank);
        if (chosen) d.initiating_host = chosen->host();
        const Event* first = chosen && chosen->first_initiating() ? chosen->first_initiating() : adopted;
        if (first) {
            d.failure = first->signature->entry;
            if (const Entry* s = scenario_for(kb, d.failure, collateral_kinds)) d.failure = s;
            if (first->time && first->time_exact) d.initiating_time = format_time(*first->time);
        } else {
            d.failure = verdict_entry(kb, lead->strategy);
        }
        auto add_evidence = [&](const Evidence& e) {
            bool dup = std::any_of(d.evidence.begin(), d.evidence.end(),
                                   [&](const Evidence& x) { return x.file == e.file && x.line == e.line; });
            if (!dup && d.evidence.size() < 4) d.evidence.push_back(e);
        };
        for (const Candidate& c : candidates)
            if (same_target(c, *lead))
                for (const Event* e : c.evidence) add_evidence(evidence_of(*e));
        if (chosen && !first) {
            // Only the launcher saw this worker fail: its report of the exit is the evidence, and the worker's
            // own message is the fact still missing.
            for (const ExitRecord& x : t.exits)
                if (table.resolve_exit(x) == chosen) add_evidence(x.evidence);
            if (chosen->own_lines == 0)
                d.missing.push_back(chosen->name() + "'s own output is not in these logs, so what it failed with is "
                                    "not known: find its stderr (torchrun --log-dir keeps it in attempt_N/" +
                                    (chosen->local_rank ? std::to_string(*chosen->local_rank) : std::string("<local_rank>")) +
                                    "/stderr.log; or rerun with --tee 3 and without --local-ranks-filter) and search it "
                                    "for 'Traceback'.");
        }
        if (chosen && (d.evidence.empty() || !first) && !chosen->summary.last_line.file.empty())
            add_evidence(chosen->summary.last_line);
        if (chosen && chosen->sigterm_by_agent && chosen->direct_specific_initiating().empty())
            d.reasoning.push_back("torchrun's agent sent " + chosen->name() + " (pid " + std::to_string(*chosen->pid) +
                                  ") SIGTERM at teardown: it was still running after the others had failed, as a "
                                  "hung rank is.");
        if (chosen && !chosen->rank_inference.empty()) {
            d.notes.push_back("The global rank of " + chosen->name() + " is " + chosen->rank_inference + ".");
            if (d.confidence == "high") d.confidence = "medium";
        }
        if (!chosen) {
            // A rank known only by elimination ran where everyone else did, if that is one host.
            std::set<std::string> hosts;
            bool all_known = true;
            for (const Process& p : table.processes())
                if (p.rank) {
                    if (auto h = p.host()) hosts.insert(*h);
                    else all_known = false;
                }
            if (hosts.size() == 1 && (all_known || table.processes().size() > 1)) d.initiating_host = *hosts.begin();
            d.missing.push_back("Rank " + std::to_string(*lead->rank) +
                                "'s own output is not here, so what it was doing is unknown: look at its log (or "
                                "a stack dump of it: py-spy dump --pid <pid>) for its last step.");
        }
        if (!unseen.empty() && d.confidence == "high" && lead->strategy == "initiating-event" && candidates.size() == 1) {
            d.confidence = "medium";
            d.notes.push_back("The logs of " + ranks_phrase(unseen) +
                              " are not here; a failure there cannot be ruled out, though nothing here points to one.");
        }
    } else if (!init.systemic.empty()) {
        d.rank_not_applicable = true;
        d.failure = init.systemic.front()->first_initiating()->signature->entry;
        d.confidence = "medium";
        std::vector<int> unknown_kind;
        for (const Process* p : init.systemic) {
            if (p->rank) d.affected_ranks.push_back(*p->rank);
            const Event* e = p->first_initiating();
            if (!e) {   // failed at once, but the kind is cut off: show where its report starts
                for (const Event* m : p->events)
                    if (m->signature->mark == Mark::failure_start) { e = m; break; }
                if (p->rank) unknown_kind.push_back(*p->rank);
            }
            if (e && d.evidence.size() < 4) d.evidence.push_back(evidence_of(*e));
        }
        std::sort(d.affected_ranks.begin(), d.affected_ranks.end());
        d.strategies.push_back("initiating-event");
        if (d.failure->scope == "job")
            d.reasoning.push_back(d.failure->title + " is a failure of the whole job, not of one rank.");
        else if (unknown_kind.empty())
            d.reasoning.push_back("The same error (" + d.failure->title + ") appears on " +
                                  (d.affected_ranks.empty() ? std::string("several processes")
                                                            : ranks_phrase(d.affected_ranks)) +
                                  " at about the same time: one cause common to all of them, not one rank's failure.");
        else
            d.reasoning.push_back(init.systemic.front()->name() + " hit " + d.failure->title + ", and " +
                                  ranks_phrase(unknown_kind) + " began a failure report of its own right after "
                                  "(its end is not in the logs), with no collateral error to explain it: several "
                                  "ranks failed at once, so this is not one rank's failure. " +
                                  init.systemic.front()->name() + " is only the first observed.");
        // The host where it happened, when that is one host; a failure spread over nodes has none.
        std::set<std::string> hosts;
        bool every_host_known = true;
        for (const Process* p : init.systemic) {
            // The line's own host first: one stream can carry several nodes' lines (pdsh, a shared console).
            const Event* e = p->first_initiating();
            std::optional<std::string> host = e && e->host ? e->host : p->host();
            if (host) hosts.insert(*host);
            else every_host_known = false;
        }
        if (hosts.size() == 1 && every_host_known) d.initiating_host = *hosts.begin();
    } else if (any_failure) {
        d.undetermined = true;
        d.confidence = "low";
        // The failure is what the logs do show: an unranked initiating error, else the most common collateral.
        if (!init.unranked.empty()) {
            const Process* p = init.unranked.front();
            const Event* e = p->first_specific_initiating() ? p->first_specific_initiating() : p->first_generic_initiating();
            d.failure = e->signature->entry;
            d.initiating_host = p->host();
            d.evidence.push_back(evidence_of(*e));
            std::string where = p->host() ? " on host " + *p->host() : " in " + t.groups[p->group].name;
            if (p->cuda_dev()) where += " (GPU " + std::to_string(*p->cuda_dev()) + ")";
            d.missing.push_back("Which rank printed \"" + excerpt(e->evidence.text, 120) + "\"" + where +
                                ": no line ties that process to a rank. Rerun with NCCL_DEBUG=INFO (its 'Init COMPLETE' "
                                "lines map rank to host, pid and GPU) or torchrun --tee 3 so every line carries its rank.");
        } else if (!init.unordered.empty()) {
            std::vector<int> rs;
            for (const Process* p : init.unordered) {
                if (p->rank) rs.push_back(*p->rank);
                d.evidence.push_back(evidence_of(*p->first_initiating()));
            }
            d.failure = init.unordered.front()->first_initiating()->signature->entry;
            d.missing.push_back("Which of " + ranks_phrase(rs) +
                                " failed first: each has an error of its own, and their lines carry no timestamps "
                                "that can be compared across files. Look for dated timestamps (or dmesg/journal times) "
                                "on those errors.");
        } else {
            // The failure named is the most severe collateral error, then the one most ranks share (the watchdog
            // timeout all 63 survivors print), not the noisiest line; ties go to the one seen first.
            std::map<const Entry*, int> ranks_with;
            std::map<const Entry*, std::uint64_t> first_seen;
            const Event* example = nullptr;
            for (const Process& p : table.processes()) {
                std::set<const Entry*> mine;
                for (const Event* e : p.collateral) {
                    const Entry* entry = e->signature->entry;
                    if (!first_seen.count(entry) || e->order < first_seen[entry]) first_seen[entry] = e->order;
                    mine.insert(entry);
                }
                for (const Entry* entry : mine) ranks_with[entry] += p.rank ? 2 : 1;
            }
            const Entry* best = nullptr;
            auto key = [&](const Entry* e) { return std::make_tuple(severity_level(*e), ranks_with[e]); };
            for (auto& [e, n] : ranks_with)
                if (!best || key(e) > key(best) || (key(e) == key(best) && first_seen[e] < first_seen[best])) best = e;
            for (const Process& p : table.processes())
                for (const Event* e : p.collateral)
                    if (e->signature->entry == best && (!example || (p.rank && e->order < example->order))) example = e;
            d.failure = best;
            if (example) d.evidence.push_back(evidence_of(*example));
            std::vector<const Entry*> kinds(collateral_kinds.begin(), collateral_kinds.end());
            std::string terms = quoted_list(search_terms(kinds));
            std::string absent_hosts = describe_absent_hosts(table, t, unseen);
            if (!unseen.empty()) {
                std::vector<int> seen = table.seen_ranks();
                d.missing.push_back("The logs of " + ranks_phrase(unseen) +
                                    (absent_hosts.empty() ? std::string() : " (" + absent_hosts + ")") +
                                    " are not here (these inputs show " +
                                    (seen.empty() ? std::string("no rank by number") : ranks_phrase(seen)) +
                                    (world ? " of " + std::to_string(*world) : std::string()) +
                                    ", and only collateral errors); search them for " + terms + ".");
            } else {
                std::vector<int> seen = table.seen_ranks();
                bool whole_world = world && !seen.empty() && static_cast<int>(seen.size()) == *world &&
                                   t.world_size && *t.world_size == *world;
                if (whole_world) {
                    // Every rank is here and all of them only waited: the stall is invisible in these logs.
                    d.missing.push_back("All " + std::to_string(*world) + " ranks are in these logs and every one "
                                        "reports the same collateral error, with no rank silent and no rank behind "
                                        "in NCCL sequence numbers, so the logs cannot tell who stalled. What each rank "
                                        "was doing would: Flight Recorder dumps (TORCH_NCCL_TRACE_BUFFER_SIZE=2000, "
                                        "TORCH_NCCL_DUMP_ON_TIMEOUT=1, then torchfrtrace), stack dumps of every rank "
                                        "(py-spy dump --pid <pid>), or errors outside these logs (dmesg for Xid, the "
                                        "scheduler's log).");
                } else {
                    std::string who = seen.empty() ? std::string("every process in these logs")
                                                   : "every rank in these logs (" + ranks_phrase(seen) + ")";
                    d.missing.push_back("No log here shows a process failing on its own: " + who +
                                        " reports only collateral errors. The rank that failed first wrote to a log "
                                        "that is not here (another node's or another rank's" +
                                        (absent_hosts.empty() ? std::string() : "; " + absent_hosts) +
                                        "); search it for " + terms + ".");
                }
            }
            if (!candidates.empty())
                d.missing.push_back("The signals here disagree: " + candidates.front().reason);
        }
    }

    // The logs name one host in all, and no worker names a host of its own (which would hint at per-worker
    // hosts, as in mpirun output): the job ran there.
    bool worker_hosts = std::any_of(t.raw_processes.begin(), t.raw_processes.end(),
                                    [](const auto& kv) { return kv.first.rank && kv.second.host; });
    if (!d.initiating_host && !worker_hosts && (d.initiating_rank || d.rank_not_applicable)) {
        std::set<std::string> all;
        for (const Group& g : t.groups)
            for (const auto& h : g.hosts)
                if (h != "localhost") all.insert(h);
        // MASTER_ADDR alone names where rank 0 runs, not where the job ran: the other nodes go unnamed.
        for (const auto& [h, ranks] : t.topology.host_ranks)
            if (!ranks.empty() || !t.topology.masters.count(h)) all.insert(h);
        if (all.size() == 1) d.initiating_host = *all.begin();
    }

    if (d.failure) {
        d.fix = advise(*d.failure, t, table.workers_are_srun_tasks());
        d.verify = d.failure->verify;
    }

    // Collateral: every other process with collateral errors of its own.
    for (const Process& p : table.processes()) {
        if (&p == chosen || p.collateral.empty()) continue;
        // Lines no worker can be named for (the launcher's, the scheduler's) are context, not a collateral rank.
        if (!p.rank && !p.local_rank && !p.pid) continue;
        if (d.rank_not_applicable && p.rank && in_list_int(d.affected_ranks, *p.rank)) continue;
        CollateralRank c;
        c.rank = p.rank;
        c.process = p.name();
        c.host = p.host();
        // Each collateral process is shown with its most telling error: the most severe, the earliest of those.
        const auto& pool = p.direct_collateral.empty() ? p.collateral : p.direct_collateral;
        const Event* head = pool.front();
        for (const Event* e : pool)
            if (severity_level(*e->signature->entry) > severity_level(*head->signature->entry)) head = e;
        c.failure = head->signature->entry;
        c.evidence.push_back(evidence_of(*head));
        d.collateral.push_back(std::move(c));
    }

    // Ranks in order, the processes without one after them: a 64-rank list must be readable.
    std::stable_sort(d.collateral.begin(), d.collateral.end(), [](const CollateralRank& a, const CollateralRank& b) {
        return std::make_tuple(!a.rank, a.rank.value_or(0)) < std::make_tuple(!b.rank, b.rank.value_or(0));
    });

    // torchrun's own verdict, when it disagrees.
    for (const ExitRecord& x : t.exits) {
        if (!x.root_cause_section || !x.rank) continue;
        if (d.initiating_rank && *x.rank != *d.initiating_rank)
            d.notes.push_back("torchrun's \"Root Cause (first observed failure)\" names rank " + std::to_string(*x.rank) +
                              " (" + x.evidence.file + ":" + std::to_string(x.evidence.line) +
                              "), but that is only the earliest failure one agent recorded (by its workers' error-file times, or by when it "
                              "polled their exits when they wrote none, to the second); rank " +
                              std::to_string(*d.initiating_rank) + " failed first.");
    }

    if (d.failure || d.undetermined) report.diagnoses.push_back(std::move(d));

    // Per-process states.
    const Diagnosis* dx = report.diagnoses.empty() ? nullptr : &report.diagnoses.front();
    for (const Process& p : table.processes()) {
        if (!p.rank && p.own_lines == 0) continue;
        if (!p.rank && p.events.empty()) continue;   // unranked chatter (agent, banners) is not a worker
        RankState s;
        s.rank = p.rank;
        s.process = p.name();
        s.host = p.host();
        s.last_line = p.summary.last_line;
        if (&p == chosen) s.state = "initiating";
        else if (dx && dx->rank_not_applicable && p.rank && in_list_int(dx->affected_ranks, *p.rank)) s.state = "affected";
        else if (!p.collateral.empty()) s.state = "collateral";
        else if (p.first_initiating()) s.state = "failed";
        else s.state = "silent";
        report.ranks.push_back(std::move(s));
    }
    return report;
}

}  // namespace denpex
