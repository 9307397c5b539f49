#include "engine/reasoner.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <sstream>
#include <tuple>

#include "engine/evidence_text.hpp"
#include "engine/job_topology.hpp"
#include "engine/process_table.hpp"
#include "engine/stack_banner.hpp"
#include "engine/fix_advice.hpp"
#include "engine/job_model.hpp"
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

// Everything the explanation reads: the model, the decision, and where they came from.
struct Context {
    const Timeline& t;
    const KnowledgeBase& kb;
    const ProcessTable& table;
    const JobModel& m;
    const Decision& decision;
    std::set<const Event*> ignored;        // consequences of the stall: never a cause
    std::set<const Entry*> collateral_kinds;

    // A process's first error that is not a consequence of the stall.
    const Event* first_cause(const Process& p) const {
        for (const auto* list : {&p.specific_initiating, &p.generic_initiating})
            for (const Event* e : *list)
                if (!ignored.count(e)) return e;
        return nullptr;
    }
};

void add_evidence(Diagnosis& d, const Evidence& e) {
    bool dup = std::any_of(d.evidence.begin(), d.evidence.end(),
                           [&](const Evidence& x) { return x.file == e.file && x.line == e.line; });
    if (!dup && d.evidence.size() < 4) d.evidence.push_back(e);
}

std::string where_of(const Event& e) { return e.evidence.file + ":" + std::to_string(e.evidence.line); }

// The reasons the evidence gives for the confidence: what corroborates the lead, and what it lacks.
void explain_confidence(const Context& c, Diagnosis& d) {
    std::set<Support> kinds;
    for (std::size_t i : c.decision.agreeing)
        kinds.insert(c.m.facts.suspects[i].support.begin(), c.m.facts.suspects[i].support.end());
    if (kinds.count(Support::first_in_time))
        d.reasoning.push_back("Its error comes first in time: the other ranks' collateral errors (or the start of "
                              "their wait, dated by their timeouts) come after it.");
    if (kinds.count(Support::peers_point_at))
        d.reasoning.push_back("The other ranks' errors point at it: they name it as their lost peer, or every other "
                              "rank of the world is here and waiting while it alone is not.");
    if (kinds.count(Support::work_compared))
        d.reasoning.push_back("The work it waited on differs from what every other rank waited on at the same sequence "
                              "number: the ranks agree with each other, not with it.");
    if (kinds.count(Support::outside_record))
        d.reasoning.push_back("Evidence outside its own output agrees: a kernel or launcher record of it, or output no other "
                              "process claims.");
    if (c.decision.confidence == Confidence::low)
        d.reasoning.push_back(kinds.count(Support::utilization)
                                  ? "This is an inference from one snapshot of GPU utilisation: no error of its own "
                                    "confirms it (a stack dump of that rank would: py-spy dump --pid <pid>)."
                                  : "This is an inference from silence or order alone: no error of its own confirms it.");
    if (c.decision.confidence == Confidence::medium && !c.m.unseen.empty() && c.m.facts.suspects[*c.decision.lead].strategy == Strategy::initiating_event)
        d.notes.push_back("The logs of " + ranks_phrase(c.m.unseen) +
                          " are not here; a failure there cannot be ruled out, though nothing here points to one.");
}

// Outside ends that came after the ranks had begun to wait: said, so the user sees why they are not the cause.
void explain_consequences(const Context& c, Diagnosis& d) {
    std::size_t shown = 0;
    for (const Event* e : c.m.consequences) {
        if (shown++ >= 2) break;
        const Event* after = c.m.consequence_of.at(e);
        if (after->signature->mark == Mark::step_teardown) {
            d.reasoning.push_back(e->signature->entry->title + " (" + where_of(*e) + ") was reported after the launcher "
                                  "began to end the step (" + where_of(*after) + "): the teardown ended that worker, "
                                  "so it is a consequence, not the cause.");
            continue;
        }
        const bool waited = after->shows_wait();
        d.reasoning.push_back(e->signature->entry->title + " (" + where_of(*e) + ") came after the " +
                              (waited ? "ranks were already waiting" : "job had already begun to fail") + " (" +
                              where_of(*after) + "): it ended a job that had already " + (waited ? "stalled" : "failed") +
                              ", so it is a consequence, not the cause.");
    }
}

// Errors printed after the process's own wait had timed out: said, so the user sees why the loudest line is not it.
void explain_fallout(const Context& c, Diagnosis& d) {
    // One line per process, naming its most specific error (the OOM, not the exception that carries it).
    std::vector<const Event*> telling;
    for (const Event* e : c.m.fallout) {
        auto same = std::find_if(telling.begin(), telling.end(), [&](const Event* t) { return t->key == e->key; });
        if (same == telling.end()) telling.push_back(e);
        else if ((*same)->signature->fallback && !e->signature->fallback) *same = e;
    }
    std::size_t shown = 0;
    for (const Event* e : telling) {
        if (shown++ >= 2) break;
        const auto cause = c.m.fallout_cause.find(e);
        if (cause != c.m.fallout_cause.end() && cause->second == JobModel::FalloutCause::size_from_broken_collective)
            d.reasoning.push_back(e->signature->entry->title + " (" + where_of(*e) +
                                  ") asks for more memory than the whole GPU has, inside a collective that allocates the "
                                  "size its peers sent: the size came from a broken collective, so the error is fallout of "
                                  "the failure, not its cause.");
        else
            d.reasoning.push_back(e->signature->entry->title + " (" + where_of(*e) +
                                  ") came after that process's own collective had already timed out: fallout of the "
                                  "stall on it, not the stall's cause.");
    }
}

void explain_determined(const Context& c, Diagnosis& d, const Process*& chosen) {
    const Decision& dec = c.decision;
    const Candidate& lead = c.m.candidates[*dec.lead];
    chosen = lead.process;
    d.confidence = std::string(to_string(dec.confidence));
    for (std::size_t i : dec.agreeing) {
        d.strategies.push_back(std::string(to_string(c.m.candidates[i].strategy)));
        d.reasoning.push_back(c.m.candidates[i].reason);
    }
    for (std::size_t i = 0; i < c.m.candidates.size(); ++i)
        if (std::find(dec.agreeing.begin(), dec.agreeing.end(), i) == dec.agreeing.end())
            d.reasoning.push_back("Weighed and set aside: " + c.m.candidates[i].reason);
    d.initiating_rank = lead.rank;
    d.initiating_process = chosen ? chosen->name() : "rank " + std::to_string(*lead.rank);
    if (chosen) d.initiating_host = chosen->host();
    const Event* first = chosen && c.first_cause(*chosen) ? c.first_cause(*chosen) : c.m.adopted;
    if (first) {
        d.failure = first->signature->entry;
        if (const Entry* s = scenario_for(c.kb, d.failure, c.collateral_kinds)) d.failure = s;
        if (first->time && first->time_exact) d.initiating_time = format_time(*first->time);
    } else {
        // A worker that ended is never called a hang: the launcher's record of its end names the failure.
        for (std::size_t i : dec.agreeing)
            if (c.m.candidates[i].strategy == Strategy::own_end && !c.m.candidates[i].evidence.empty())
                d.failure = c.m.candidates[i].evidence.front()->signature->entry;
        if (!d.failure) d.failure = verdict_entry(c.kb, std::string(to_string(lead.strategy)));
    }
    for (std::size_t i : dec.agreeing)
        for (const Event* e : c.m.candidates[i].evidence) add_evidence(d, e->evidence);
    if (chosen && !first) {
        // Only the launcher saw this worker fail: its report of the exit is the evidence, and the worker's own
        // message is the fact still missing.
        for (const ExitRecord& x : c.t.exits)
            if (c.table.resolve_exit(x) == chosen) add_evidence(d, x.evidence);
        if (chosen->own_lines == 0)
            d.missing.push_back(chosen->name() + "'s own output is not in these logs, so what it failed with is "
                                "not known: find its stderr (torchrun --log-dir keeps it in attempt_N/" +
                                (chosen->local_rank ? std::to_string(*chosen->local_rank) : std::string("<local_rank>")) +
                                "/stderr.log; or rerun with --tee 3 and without --local-ranks-filter) and search it "
                                "for 'Traceback'.");
    }
    if (chosen && (d.evidence.empty() || !first) && !chosen->summary.last_line.file.empty())
        add_evidence(d, chosen->summary.last_line);
    if (chosen && chosen->sigterm_by_agent && chosen->direct_specific_initiating().empty())
        d.reasoning.push_back("torchrun's agent sent " + chosen->name() + " (pid " + std::to_string(*chosen->pid) +
                              ") SIGTERM at teardown: it was still running after the others had failed, as a "
                              "hung rank is.");
    if (chosen && !chosen->rank_inference.empty())
        d.notes.push_back("The global rank of " + chosen->name() + " is " + chosen->rank_inference + ".");
    if (chosen && chosen->rank_guessed && chosen->local_rank)
        d.missing.push_back("Which node this output is from, or the world size: local rank " +
                            std::to_string(*chosen->local_rank) + " is global rank " +
                            std::to_string(*chosen->local_rank) + " only on the first node (global rank = node_rank "
                            "x nproc_per_node + local rank). torchrun's failure summary ('rank : R (local_rank: L)'), "
                            "its --node_rank, or NCCL_DEBUG=INFO's 'Init COMPLETE' lines give it.");
    if (!chosen) {
        // A rank known only by elimination ran where everyone else did, if that is one host.
        std::set<std::string> hosts;
        bool all_known = true;
        for (const Process& p : c.table.processes())
            if (p.rank) {
                if (auto h = p.host()) hosts.insert(*h);
                else all_known = false;
            }
        if (hosts.size() == 1 && (all_known || c.table.processes().size() > 1)) d.initiating_host = *hosts.begin();
        d.missing.push_back("Rank " + std::to_string(*lead.rank) +
                            "'s own output is not here, so what it was doing is unknown: look at its log (or "
                            "a stack dump of it: py-spy dump --pid <pid>) for its last step.");
    }
    explain_confidence(c, d);
}

// The work was done: processes reached program exit before anything failed, and the errors came in the teardown.
void explain_after_finish(const Context& c, Diagnosis& d) {
    d.rank_not_applicable = true;
    d.confidence = std::string(to_string(c.decision.confidence));
    const Event* first_exit = c.m.finished.front();
    d.failure = first_exit->signature->entry;
    std::vector<int> finished;
    for (const Event* e : c.m.finished) {
        add_evidence(d, e->evidence);
        if (e->key.rank) finished.push_back(*e->key.rank);
    }
    std::sort(finished.begin(), finished.end());
    const Event* first_error = nullptr;
    for (const Process& p : c.table.processes())
        for (const Event* e : p.events)
            if (e->role != Role::context && (!first_error || e->order < first_error->order)) first_error = e;
    if (first_error) add_evidence(d, first_error->evidence);
    d.reasoning.push_back((finished.empty() ? std::string("Processes") : "Ranks " + join_ints(finished)) +
                          " reached program exit (" + where_of(*first_exit) + ") before any error, and every error "
                          "comes after that" + (first_error ? " (the first: " + where_of(*first_error) + ")" : "") +
                          ": the job finished its work and then hung or failed in teardown, which no single rank "
                          "initiated.");
}

// Every node's agent failed to reach the rendezvous store and none started a worker: the job's launch, not a rank.
void explain_store_served_by_none(const Context& c, Diagnosis& d) {
    d.rank_not_applicable = true;
    d.confidence = std::string(to_string(c.decision.confidence));
    const auto& fails = c.m.store_served_by_none;
    d.failure = fails.front()->signature->entry;
    std::string where;
    for (const Event* e : fails) {
        add_evidence(d, e->evidence);
        where += (where.empty() ? "" : ", ") + where_of(*e);
    }
    d.reasoning.push_back("All " + std::to_string(fails.size()) + " nodes the launch fixes or admits are here, none started a "
                          "worker, and every node's agent failed to reach the rendezvous store (" + where + "). The "
                          "store is served by the agent whose own address is the endpoint, so none of them served "
                          "it: the endpoint is no node's address, or no node can reach it. One misconfiguration of "
                          "the whole launch, not a rank's failure.");
}

// A verdict on the whole job read from job-wide facts: the entry whose `verdicts` names it (else, or with no name,
// the first line's entry), and the lines that show it as evidence.
void job_wide_verdict(const Context& c, Diagnosis& d, const std::string& verdict,
                      const std::vector<const Event*>& lines) {
    d.rank_not_applicable = true;
    d.confidence = std::string(to_string(c.decision.confidence));
    const Entry* named = verdict.empty() ? nullptr : verdict_entry(c.kb, verdict);
    d.failure = named ? named : lines.front()->signature->entry;
    for (const Event* e : lines)
        if (d.evidence.size() < 4) add_evidence(d, e->evidence);
}

// Several nodes, each with its rendezvous on its own loopback: no node could join another's store.
void explain_private_rendezvous(const Context& c, Diagnosis& d) {
    job_wide_verdict(c, d, "private-rendezvous", c.m.private_rendezvous);
    d.reasoning.push_back("The launch fixes " + std::to_string(c.t.nodes_expected().value_or(2)) +
                          " nodes, but the rendezvous endpoint is the agent's own loopback (localhost, as --standalone "
                          "sets it): every node serves a store of its own that no other node can reach, so no node's "
                          "rendezvous completes and no worker starts. One misconfiguration of the launch, not a "
                          "rank's failure: give every node the same --rdzv-endpoint=<first node's address>:<port>.");
}

// Several nodes, and NCCL's transport on the loopback interface: no node could reach another.
void explain_transport_on_loopback(const Context& c, Diagnosis& d) {
    const auto& lines = c.m.transport_on_loopback;
    job_wide_verdict(c, d, "transport-on-loopback", lines);
    std::string where;
    for (const Event* e : lines) where += (where.empty() ? "" : ", ") + where_of(*e);
    d.reasoning.push_back("NCCL's transport uses the loopback interface (" + where + ") in a job of two nodes or more: "
                          "127.0.0.1 reaches only the node itself, so every connection between nodes fails, and every "
                          "failure here is one of communication. One setting of the job, not a rank's failure: the rank "
                          "that failed first only noticed first.");
}

// Every rank timed out under a limit shorter than any collective: the setting, not a rank.
void explain_timeout_too_short(const Context& c, Diagnosis& d) {
    const auto& waits = c.m.timeout_too_short;
    job_wide_verdict(c, d, "", waits);
    long long limit = 0;
    for (const Event* e : waits) limit = std::max(limit, e->number("timeout_ms").value_or(0));
    d.affected_ranks.clear();
    for (int r = 0; r < static_cast<int>(waits.size()); ++r) d.affected_ranks.push_back(r);
    d.reasoning.push_back("Every rank of the world timed out, and the collective timeout is " + std::to_string(limit) +
                          " ms: shorter than any collective can take (the first one also sets up the communicator), "
                          "so the watchdog fired on every rank whether or not one was at fault. The timeout setting "
                          "(init_process_group(timeout=...), a framework's ddp_timeout or nccl_timeout) is the cause.");
}

// One unranked stream whose failure report is shredded into another's: say which lines show it, as evidence.
void explain_interleaved(const Process& p, Diagnosis& d) {
    const Event* shredded = nullptr;
    for (const Event* e : p.events)
        if (e->signature->mark == Mark::interleaved_frame) { shredded = e; break; }
    if (!shredded) return;
    if (d.evidence.size() < 4) d.evidence.push_back(shredded->evidence);
    d.reasoning.push_back("Its traceback is shredded into another process's in the same stream (\"" +
                          excerpt(shredded->evidence.text, 100) +
                          "\": a frame glued to another writer's text), through the same frames: at least two "
                          "processes printed this failure at the same moment. Read from the interleaving, not from two "
                          "error lines, so low.");
}

// Ranks given out twice: the launch's rank arithmetic, not a rank.
void explain_duplicate_ranks(const Context& c, Diagnosis& d) {
    const auto& twice = c.m.duplicate_ranks;   // two announcements
    job_wide_verdict(c, d, "duplicate-ranks", twice);
    const std::string rank = std::to_string(twice.front()->number("announced_rank").value_or(0));
    const std::string world = std::to_string(twice.front()->number("announced_world").value_or(0));
    d.reasoning.push_back("Global rank " + rank + " is announced twice at start-up (" + where_of(*twice[0]) + " and " +
                          where_of(*twice[1]) + "), in a world of " + world +
                          " whose other ranks are not all announced: two processes were given the same rank (every "
                          "node computing its ranks from the same node rank), so the ranks above them never exist and "
                          "every process waits at start-up for them. Read from counting announcements, so low.");
}

// The store counted more processes than the world has: the launch started its workers twice.
void explain_overfull_world(const Context& c, Diagnosis& d) {
    job_wide_verdict(c, d, "duplicate-ranks", c.m.overfull_world);
    const Event& e = *c.m.overfull_world.front();
    d.reasoning.push_back("The store-based barrier counted " + std::to_string(e.number("joined").value_or(0)) +
                          " processes joining a world of " + std::to_string(e.number("barrier_world").value_or(0)) +
                          " (" + where_of(e) + "): more workers were started than the world has, so ranks were given "
                          "out twice and start-up can never complete (srun tasks that each spawn every GPU's worker, "
                          "or nodes computing their ranks from one node rank). A misconfiguration of the launch, not "
                          "a rank's failure.");
}

// Every rank waited in the first collective: the communicator's transport, not a rank.
void explain_first_collective_hung(const Context& c, Diagnosis& d) {
    const auto& waits = c.m.first_collective_hung;
    job_wide_verdict(c, d, "", waits);
    d.affected_ranks.clear();
    for (int r = 0; r < static_cast<int>(waits.size()); ++r) d.affected_ranks.push_back(r);
    d.reasoning.push_back("Every rank of the world (" + std::to_string(waits.size()) + ") timed out in its first "
                          "collective (sequence number 1) with no error of its own: every rank arrived, so none was "
                          "missing from it, and the communicator never completed a single collective. The transport "
                          "between the GPUs or nodes is the likely cause (peer-to-peer access between consumer GPUs, "
                          "an interface that passes set-up but not data), not one rank. This is an inference from all "
                          "ranks having arrived, so the confidence is low.");
    d.missing.push_back("Whether the transport works at all: rerun with NCCL_DEBUG=INFO (the transport each channel "
                        "uses) and once with NCCL_P2P_DISABLE=1 (and, across nodes, NCCL_IB_DISABLE=1): a run that "
                        "then passes its first collective confirms it.");
}

// Every rank failed to reach one peer: the address or the path to it, not a rank.
void explain_one_peer_unreachable(const Context& c, Diagnosis& d) {
    const auto& errors = c.m.one_peer_unreachable;
    job_wide_verdict(c, d, "", errors);
    d.affected_ranks.clear();
    for (int r = 0; r < static_cast<int>(errors.size()); ++r) d.affected_ranks.push_back(r);
    const std::string peer = host_of_peer(errors.front()->captures.at("peer"));
    d.reasoning.push_back("Every rank of the world (" + std::to_string(errors.size()) + ") failed to reach " + peer +
                          " (e.g. " + where_of(*errors.front()) + "), and none reports an error of its own. A rank "
                          "that died would not fail to reach itself and would leave its own trace; here whichever ranks "
                          "run on " + peer + " fail alike too, which points at the address or the network path to it (an "
                          "interface that other nodes cannot reach, a firewall, a port closed), not at one rank. This "
                          "is an inference from every rank failing alike, so the confidence is low.");
    d.missing.push_back("Whether " + peer + " is reachable from every node at the port the errors name: from each node, "
                        "nc -zv " + peer + " <port> while the job starts, and NCCL_DEBUG=INFO's 'Bootstrap : Using' "
                        "and 'NET/Socket : Using' lines on every node (set NCCL_SOCKET_IFNAME to an interface all "
                        "nodes share).");
}

// "ranks 0-3", "rank 2 and 3 other processes" (workers known only by pid), or "4 processes".
std::string processes_phrase(const std::vector<int>& ranks, std::size_t processes) {
    if (ranks.empty()) return std::to_string(processes) + " processes";
    std::string phrase = ranks_phrase(ranks);
    if (const std::size_t others = processes - std::min(processes, ranks.size()); others > 0)
        phrase += " and " + std::to_string(others) + (others == 1 ? " other process" : " other processes");
    return phrase;
}

void explain_systemic(const Context& c, Diagnosis& d) {
    if (!c.m.transport_on_loopback.empty()) return explain_transport_on_loopback(c, d);
    if (c.m.init.systemic.empty() && !c.m.overfull_world.empty()) return explain_overfull_world(c, d);
    if (c.m.init.systemic.empty() && !c.m.duplicate_ranks.empty()) return explain_duplicate_ranks(c, d);
    if (c.m.init.systemic.empty() && !c.m.store_served_by_none.empty()) return explain_store_served_by_none(c, d);
    if (c.m.init.systemic.empty() && !c.m.private_rendezvous.empty()) return explain_private_rendezvous(c, d);
    if (c.m.init.systemic.empty() && !c.m.timeout_too_short.empty()) return explain_timeout_too_short(c, d);
    if (c.m.init.systemic.empty() && !c.m.first_collective_hung.empty()) return explain_first_collective_hung(c, d);
    if (c.m.init.systemic.empty() && !c.m.one_peer_unreachable.empty()) return explain_one_peer_unreachable(c, d);
    if (c.m.init.systemic.empty() && !c.m.finished.empty()) return explain_after_finish(c, d);
    const auto& systemic = c.m.init.systemic;
    d.rank_not_applicable = true;
    d.failure = c.first_cause(*systemic.front())->signature->entry;
    d.confidence = std::string(to_string(c.decision.confidence));
    std::vector<int> unknown_kind;
    for (const Process* p : systemic) {
        if (p->rank) d.affected_ranks.push_back(*p->rank);
        const Event* e = c.first_cause(*p);
        if (!e) {   // failed at once, but the kind is cut off: show where its report starts
            for (const Event* m : p->events)
                if (m->signature->mark == Mark::failure_start) { e = m; break; }
            if (p->rank) unknown_kind.push_back(*p->rank);
        }
        if (e && d.evidence.size() < 4) d.evidence.push_back(e->evidence);
    }
    std::sort(d.affected_ranks.begin(), d.affected_ranks.end());
    d.strategies.push_back(std::string(to_string(Strategy::initiating_event)));
    const std::string& first_name = systemic.front()->name();
    std::size_t processes = systemic.size();
    if (systemic.size() == 1)
        processes = std::max({std::size_t{1}, alike_reports(*systemic.front()), interleaved_reports(*systemic.front())});
    if (c.m.init.systemic_inferred) explain_interleaved(*systemic.front(), d);
    if (d.failure->scope == "job")
        d.reasoning.push_back(d.failure->title + " is a failure of the whole job, not of one rank.");
    else if (unknown_kind.empty())
        d.reasoning.push_back("The same error (" + d.failure->title + ") appears on " +
                              processes_phrase(d.affected_ranks, processes) +
                              " at about the same time: one cause common to all of them, not one rank's failure.");
    else
        d.reasoning.push_back(first_name + " hit " + d.failure->title + ", and " + ranks_phrase(unknown_kind) +
                              " began a failure report of its own right after (its end is not in the logs), with no "
                              "collateral error to explain it: several ranks failed at once, so this is not one rank's "
                              "failure. " + first_name + " is only the first observed.");
    // The host where it happened, when that is one host; a failure spread over nodes has none.
    std::set<std::string> hosts;
    bool every_host_known = true;
    for (const Process* p : systemic) {
        // The line's own host first: one stream can carry several nodes' lines (pdsh, a shared console).
        const Event* e = c.first_cause(*p);
        std::optional<std::string> host = e && e->host ? e->host : p->host();
        if (host) hosts.insert(*host);
        else every_host_known = false;
    }
    if (hosts.size() == 1 && every_host_known) d.initiating_host = *hosts.begin();
}

std::pair<const Entry*, const Event*> most_telling_collateral(const Context& c);

void explain_unranked(const Context& c, Diagnosis& d) {
    const Process* p = c.m.init.unranked.front();
    const Event* e = c.first_cause(*p);
    d.failure = e->signature->entry;
    d.initiating_host = p->host();
    d.evidence.push_back(e->evidence);
    // A bare exception says less than a specific error elsewhere in the logs ("RuntimeError: Socket Timeout" from
    // the agent beside NCCL's "Connect to 192.168.50.12 failed"): the failure is named by the specific one.
    if (e->signature->fallback)
        if (const auto [best, example] = most_telling_collateral(c); best && severity_level(*best) >= severity_level(*d.failure)) {
            d.failure = best;
            add_evidence(d, example->evidence);
        }
    std::string where = p->host() ? " on host " + *p->host() : " in " + c.t.groups[p->group].name;
    if (p->cuda_dev()) where += " (GPU " + std::to_string(*p->cuda_dev()) + ")";
    // The line may be the failing worker's own or a launcher's report of it ("died with <Signals.SIGSEGV: 11>"):
    // either way, what is missing is the rank it is about.
    d.missing.push_back("Which rank \"" + excerpt(e->evidence.text, 120) + "\"" + where +
                        " is about: no line ties the process that printed it, or the one it reports on, to a rank. "
                        "Rerun with NCCL_DEBUG=INFO (its 'Init COMPLETE' lines map rank to host, pid and GPU) or "
                        "torchrun --tee 3 so every line carries its rank.");
}

void explain_unordered(const Context& c, Diagnosis& d) {
    std::vector<int> rs;
    std::vector<std::string> unranked;   // named by where they wrote: a rank list alone would leave them out
    for (const Process* p : c.m.init.unordered) {
        if (p->rank) rs.push_back(*p->rank);
        else unranked.push_back(p->name());
        d.evidence.push_back(c.first_cause(*p)->evidence);
    }
    d.failure = c.first_cause(*c.m.init.unordered.front())->signature->entry;
    std::string which = rs.empty() ? std::string() : ranks_phrase(rs);
    for (const std::string& name : unranked) which += (which.empty() ? "" : ", ") + name;
    d.missing.push_back("Which of these failed first (" + which + "): each has an error of its own, and their lines carry no timestamps "
                        "that can be compared across files. Look for dated timestamps (or dmesg/journal times) "
                        "on those errors.");
}

// The only failures are checks comparing values across ranks: every rank that noticed raised one, so none of them is
// named; the values each compared say which rank diverged.
void explain_divergence(const Context& c, Diagnosis& d) {
    std::vector<int> raisers;
    std::size_t unranked = 0;
    for (const Process* p : c.m.init.disagreeing) {
        if (p->rank) raisers.push_back(*p->rank);
        else ++unranked;
        add_evidence(d, c.first_cause(*p)->evidence);
    }
    const Entry* check = c.first_cause(*c.m.init.disagreeing.front())->signature->entry;
    d.failure = check;
    const std::string who = raisers.empty() ? std::string("the processes here") : ranks_phrase(raisers);
    d.reasoning.push_back("\"" + excerpt(c.first_cause(*c.m.init.disagreeing.front())->evidence.text, 120) +
                          "\" is a check that compares values across ranks: " + who +
                          (unranked ? std::string(" (and processes without a rank)") : std::string()) +
                          " raised it because the ranks disagree, not because the rank raising it diverged.");
    if (c.first_cause(*c.m.init.disagreeing.front())->captures.count("other_rank")) {
        // The reports name ranks: the check compares in rank order, so the other ranks' reports decide.
        d.missing.push_back("The other ranks' reports of this check: each rank names the first rank, in rank order, "
                            "whose collective differs from its own, so when the others all name one rank, that rank "
                            "diverged" +
                            (check->depth.fingerprint ? "; search their logs with grep -E '" + check->depth.fingerprint->grep + "'"
                                                      : std::string()) +
                            ". With two ranks neither is a majority: compare the two call sites the report shows.");
        return;
    }
    d.missing.push_back("Which rank's values differ from the others': compare the values each rank printed with the "
                        "error (parameter counts, loss keys, shapes); the rank in the minority diverged. With two "
                        "ranks neither is a majority: print the compared values on every rank, or rerun with three "
                        "or more ranks (TORCH_DISTRIBUTED_DEBUG=DETAIL reports collective shapes per rank).");
}

// Suspects of comparable weight name different ranks: none is named, and the fact that would order them is asked.
void explain_disagreement(const Context& c, Diagnosis& d) {
    std::vector<std::size_t> all = c.decision.agreeing;
    all.insert(all.end(), c.decision.disagreeing.begin(), c.decision.disagreeing.end());
    std::string which;
    for (std::size_t i : all) {
        const Candidate& k = c.m.candidates[i];
        const std::string who = k.process ? k.process->name() : "rank " + std::to_string(k.rank.value_or(-1));
        which += (which.empty() ? "" : "; or ") + who + " (" + std::string(to_string(k.strategy)) + ": " + k.reason + ")";
        for (const Event* e : k.evidence) add_evidence(d, e->evidence);
        if (!d.failure && k.process && c.first_cause(*k.process)) d.failure = c.first_cause(*k.process)->signature->entry;
        d.reasoning.push_back("Against any single verdict: " + k.reason);
    }
    if (!d.failure) d.failure = verdict_entry(c.kb, std::string(to_string(c.m.candidates[all.front()].strategy)));
    d.missing.push_back("Which failed first: " + which + ". Times comparable across these ranks (dated stamps on "
                        "each error), or Flight Recorder dumps (TORCH_NCCL_TRACE_BUFFER_SIZE=2000, "
                        "TORCH_NCCL_DUMP_ON_TIMEOUT=1), would order them.");
}

// The most telling collateral error: the most severe, then one that names the peer it lost (it says where the cause
// is: Open MPI's peer host, NCCL's IB peer), then the one most ranks share (the watchdog timeout all 63 survivors
// print), not the noisiest line; ties go to the one seen first. With an example line.
std::pair<const Entry*, const Event*> most_telling_collateral(const Context& c) {
    std::map<const Entry*, int> ranks_with;
    std::map<const Entry*, bool> names_peer;
    std::map<const Entry*, std::uint64_t> first_seen;
    const Event* example = nullptr;
    for (const Process& p : c.table.processes()) {
        std::set<const Entry*> mine;
        for (const Event* e : p.collateral) {
            const Entry* entry = e->signature->entry;
            if (!first_seen.count(entry) || e->order < first_seen[entry]) first_seen[entry] = e->order;
            if (e->captures.count("peer")) names_peer[entry] = true;
            mine.insert(entry);
        }
        for (const Entry* entry : mine) ranks_with[entry] += p.rank ? 2 : 1;
    }
    const Entry* best = nullptr;
    auto key = [&](const Entry* e) { return std::make_tuple(severity_level(*e), names_peer[e], ranks_with[e]); };
    for (auto& [e, n] : ranks_with)
        if (!best || key(e) > key(best) || (key(e) == key(best) && first_seen[e] < first_seen[best])) best = e;
    for (const Process& p : c.table.processes())
        for (const Event* e : p.collateral)
            if (e->signature->entry == best && (!example || (p.rank && e->order < example->order))) example = e;
    return {best, example};
}

// No worker started, and a launcher's agent could not reach the rendezvous store (Mark::no_store): the missing output
// is whatever serves the store, on the host the errors name, not the ranks' logs (no rank ever ran). False when the
// logs show a worker, or no agent failing to reach the store.
bool explain_store_unreached(const Context& c, Diagnosis& d, const std::string& terms) {
    std::string store_host;
    bool unreached = false;
    for (const Process& p : c.table.processes()) {
        if (p.rank || p.local_rank) return false;   // workers ran
        for (const Event* e : p.events) {
            unreached = unreached || e->signature->mark == Mark::no_store;
            if (const auto peer = e->captures.find("peer"); peer != e->captures.end() && store_host.empty())
                store_host = host_of_peer(peer->second);
        }
    }
    if (!unreached) return false;
    const std::string where = store_host.empty() ? std::string("the rendezvous endpoint's host") : store_host;
    d.missing.push_back("No worker started: the launchers' agents failed at the rendezvous, unable to reach the store "
                        "on " + where + ". The output of what serves that store is not here (node 0's torchrun agent, "
                        "the one whose address is the endpoint): did it start, and did it fail to listen (a port in "
                        "use, an address of another interface) or fail first? Search it for " + terms +
                        "; from another node, while it runs: nc -zv " + where + " <port>.");
    return true;
}

// Only collateral errors are here: name the most telling one, and where the initiator's output must be.
// A launcher summary's record of a worker failing (its dated `time` field) before every other failure the logs can
// order against it, for a worker whose own output is not here: the first place to look.
const Event* earliest_recorded_end(const Context& c, const Process*& whose) {
    const Event* first = nullptr;
    for (const Process& p : c.table.processes()) {
        if (!p.rank || p.own_lines > 0) continue;
        for (const Event* e : p.events)
            if (e->in_summary && e->time && e->time->has_date && (!first || precedes(*e, *first).value_or(false))) {
                first = e;
                whose = &p;
            }
    }
    if (!first) return nullptr;
    bool ordered_before_some = false;
    for (const Process& p : c.table.processes())
        for (const Event* e : p.events) {
            if (e == first || e->role == Role::context || p.rank == whose->rank) continue;
            // The agent's own report around its summary (ChildFailedError, "failed (exitcode: ...)") tells of the
            // same ends; other records and the workers' own errors are what the first end is compared with.
            if (!e->in_summary && e->signature->entry->category == "Launcher") continue;
            const auto order = precedes(*first, *e);
            if (order == false) return nullptr;
            ordered_before_some = ordered_before_some || order.value_or(false);
        }
    return ordered_before_some ? first : nullptr;
}

// Every rank is here, and more than one of them did not report waiting on a peer (silent after start-up, or only its
// own watchdog stuck) while the others waited: one of those stalled first, and the logs do not say which.
bool explain_several_not_waiting(const Context& c, Diagnosis& d) {
    std::vector<int> silent, stuck;
    for (int r = 0; r < *c.m.world; ++r) {
        const StallRole role = stall_role(c.table.by_rank(r));
        if (role == StallRole::silent) silent.push_back(r);
        else if (role == StallRole::stuck_itself) stuck.push_back(r);
        else if (role != StallRole::waiter) return false;
    }
    if (silent.size() + stuck.size() < 2) return false;
    std::string which;
    if (!silent.empty()) which += ranks_phrase(silent) + (silent.size() == 1 ? " reports" : " report") + " nothing";
    if (!stuck.empty())
        which += std::string(which.empty() ? "" : "; ") + ranks_phrase(stuck) + (stuck.size() == 1 ? " reports" : " report") +
                 " only that its own watchdog got stuck";
    d.missing.push_back("Which of the ranks that did not report waiting stalled first: " + which +
                        ", while every other rank waited on a peer. A stack dump of each (py-spy dump --pid <pid>), "
                        "their Flight Recorder dumps (TORCH_NCCL_TRACE_BUFFER_SIZE=2000, TORCH_NCCL_DUMP_ON_TIMEOUT=1), "
                        "dmesg on their node (Xid), or the rest of their output if this log was cut would tell.");
    return true;
}

void explain_collateral_only(const Context& c, Diagnosis& d) {
    const auto [best, example] = most_telling_collateral(c);
    // A consequence of the stall (the time limit that ended it) is what the user saw last: the failure is still
    // what the ranks show, and the consequence is evidence of when it ended.
    d.failure = best ? best : c.m.consequences.empty() ? nullptr : c.m.consequences.front()->signature->entry;
    if (example) d.evidence.push_back(example->evidence);
    // The job was stopped from outside and the line does not say by whom: that end is what the logs show, and its
    // sender is the first missing fact.
    if (!c.m.unexplained_ends.empty()) {
        const Event* end = c.m.unexplained_ends.front();
        if (!d.failure || severity_level(*end->signature->entry) >= severity_level(*d.failure)) d.failure = end->signature->entry;
        d.evidence.insert(d.evidence.begin(), end->evidence);
        d.missing.push_back("Who stopped the job: \"" + excerpt(end->evidence.text, 120) + "\" (" + where_of(*end) +
                            ") says it was told to stop, not by whom or why. The scheduler's or operator's record "
                            "(sacct -j <job>, kubectl get events / kubectl describe pod) and the other nodes' logs "
                            "say which worker or node failed first.");
    }
    std::vector<const Entry*> kinds(c.collateral_kinds.begin(), c.collateral_kinds.end());
    const std::string terms = quoted_list(search_terms(kinds));
    const std::string absent_hosts = describe_absent_hosts(c.table, c.t, c.m.unseen);
    const std::vector<int> seen = c.table.seen_ranks();
    const std::optional<int>& world = c.m.world;
    if (explain_store_unreached(c, d, terms)) return;
    const Process* recorded = nullptr;
    if (const Event* end = earliest_recorded_end(c, recorded))
        d.missing.push_back("Start with " + recorded->name() + "'s own output: its launcher recorded it failing at " +
                            format_time(*end->time) + " (" + where_of(*end) + "), before every other failure these "
                            "logs can order against it, but not with what; search its log for " + terms + ".");
    if (!c.m.unseen.empty()) {
        d.missing.push_back("The logs of " + ranks_phrase(c.m.unseen) +
                            (absent_hosts.empty() ? std::string() : " (" + absent_hosts + ")") +
                            " are not here (these inputs show " +
                            (seen.empty() ? std::string("no rank by number") : ranks_phrase(seen)) +
                            (world ? " of " + std::to_string(*world) : std::string()) +
                            ", and only collateral errors); search them for " + terms + ".");
        return;
    }
    const bool whole_world = world && !seen.empty() && static_cast<int>(seen.size()) == *world && c.t.world_size &&
                             *c.t.world_size == *world;
    const bool all_waited = std::all_of(c.table.processes().begin(), c.table.processes().end(), [](const Process& p) {
        return !p.rank || p.direct_collateral.empty() || stall_role(&p) == StallRole::stuck_itself ||
               std::any_of(p.direct_collateral.begin(), p.direct_collateral.end(),
                           [](const Event* e) { return e->shows_wait(); });
    });
    // Only where every error here is a wait: a rank that saw the network fail (an IB completion error) is no waiter,
    // and the layer below (next) is then what would tell.
    if (whole_world && all_waited && explain_several_not_waiting(c, d)) return;
    if (whole_world && !all_waited) {
        // Every rank is here and each saw the failure only as an error of communication: the layer below knows more.
        d.missing.push_back("All " + std::to_string(*world) + " ranks are in these logs and every one reports only "
                            "collateral errors (how a rank sees a peer or the network fail), so the logs cannot tell "
                            "which side failed first. The layer below would: NCCL_DEBUG=INFO (its WARN lines name the "
                            "failing call and peer on each rank), dmesg on every node (Xid, link down), or the "
                            "scheduler's log; search with " + terms + ".");
        return;
    }
    if (whole_world) {
        // Every rank is here and all of them only waited: the stall is invisible in these logs.
        d.missing.push_back("All " + std::to_string(*world) + " ranks are in these logs and every one "
                            "reports the same collateral error, with no rank silent and no rank behind "
                            "in NCCL sequence numbers, so the logs cannot tell who stalled. What each rank "
                            "was doing would: Flight Recorder dumps (TORCH_NCCL_TRACE_BUFFER_SIZE=2000, "
                            "TORCH_NCCL_DUMP_ON_TIMEOUT=1, then torchfrtrace), stack dumps of every rank "
                            "(py-spy dump --pid <pid>), or errors outside these logs (dmesg for Xid, the "
                            "scheduler's log).");
        return;
    }
    const std::string who = seen.empty() ? std::string("every process in these logs")
                                         : "every rank in these logs (" + ranks_phrase(seen) + ")";
    d.missing.push_back("No log here shows a process failing on its own: " + who +
                        " reports only collateral errors. The rank that failed first wrote to a log "
                        "that is not here (another node's or another rank's" +
                        (absent_hosts.empty() ? std::string() : "; " + absent_hosts) +
                        "); search it for " + terms + ".");
}

// A rank waits in a work another rank of its group completed: the two issued different collectives under one number.
void explain_diverged_path(const Context& c, Diagnosis& d) {
    const DivergedSequences& v = *c.m.diverged_sequences;
    add_evidence(d, v.wait->evidence);
    add_evidence(d, v.completed->evidence);
    d.failure = v.wait->signature->entry;
    const std::string waiting = v.waiting->name(), ahead = v.ahead->name();
    std::string sentence_start = waiting;
    if (!sentence_start.empty())
        sentence_start[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence_start[0])));
    const std::string work = std::to_string(v.work);
    d.reasoning.push_back(sentence_start + " timed out waiting in NCCL work " + work + " (" + where_of(*v.wait) + "), which " +
                          ahead + " had completed (its last completed work is " + std::to_string(v.ahead_completed) +
                          ", " + where_of(*v.completed) + "). A collective completes only when every rank of the "
                          "group runs it, so the two issued different collectives under the same number: their code "
                          "paths diverged (a collective run on some ranks only, or skipped on some). Being behind in "
                          "sequence numbers does not say which rank took the wrong path, and since every rank took "
                          "part in a work that completed, no rank stalled before it: a rank with no output here is "
                          "not shown to have stalled either.");
    d.missing.push_back("Which rank's code path diverged, and where: rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL (it "
                        "compares every collective across ranks and names the rank whose collective differs), or "
                        "compare the collectives each rank recorded around work " + work + " in Flight Recorder "
                        "dumps (TORCH_NCCL_TRACE_BUFFER_SIZE=2000, TORCH_NCCL_DUMP_ON_TIMEOUT=1, then torchfrtrace). "
                        "Look first at code that runs a collective on some ranks only (checkpoint saving, "
                        "evaluation, logging, an early exit from the data loop) just before it. Should the ranks prove "
                        "to run the same collectives, " + waiting + "'s side of work " + work + " never finished on "
                        "its GPU: look for a GPU or link fault on its host (dmesg for Xid).");
}

void explain_undetermined(const Context& c, Diagnosis& d) {
    d.undetermined = true;
    d.confidence = std::string(to_string(Confidence::low));
    switch (c.decision.missing) {
        case MissingFact::unranked_process: explain_unranked(c, d); break;
        case MissingFact::order_of_failures: explain_unordered(c, d); break;
        case MissingFact::signals_disagree: explain_disagreement(c, d); break;
        case MissingFact::divergent_rank: explain_divergence(c, d); break;
        case MissingFact::diverged_path: explain_diverged_path(c, d); break;
        case MissingFact::collateral_only:
        case MissingFact::workers_output:   // systemic only; undetermined never carries it
        case MissingFact::none: explain_collateral_only(c, d); break;
    }
}

// The logs name one host in all, and no worker names a host of its own (which would hint at per-worker hosts, as
// in mpirun output): the job ran there.
void infer_single_host(const Timeline& t, Diagnosis& d) {
    bool worker_hosts = std::any_of(t.raw_processes.begin(), t.raw_processes.end(),
                                    [](const auto& kv) { return kv.first.rank && kv.second.host; });
    if (d.initiating_host || worker_hosts || (!d.initiating_rank && !d.rank_not_applicable)) return;
    std::set<std::string> all;
    for (const Group& g : t.groups)
        for (const auto& h : g.hosts)
            if (h != "localhost") all.insert(h);
    // MASTER_ADDR alone names where rank 0 runs, not where the job ran: the other nodes go unnamed.
    for (const auto& [h, ranks] : t.topology.host_ranks)
        if (!ranks.empty() || !t.topology.masters.count(h)) all.insert(h);
    if (all.size() != 1) return;
    // Streams whose launch lines place them on different nodes (detectron2's --machine-rank, torchrun's --node_rank),
    // one of which names no host: the host named is only its neighbour's, not where every worker ran.
    std::set<int> positions;
    bool unplaced_host = false;
    for (const Group& g : t.groups)
        if (g.launch_first_rank) {
            positions.insert(*g.launch_first_rank);
            unplaced_host = unplaced_host || g.hosts.empty();
        }
    if (positions.size() > 1 && unplaced_host) return;
    d.initiating_host = *all.begin();
}

// Every other process with collateral errors of its own, each with its most telling error.
void list_collateral(const Context& c, const Process* chosen, Diagnosis& d) {
    for (const Process& p : c.table.processes()) {
        if (&p == chosen || p.collateral.empty()) continue;
        // Lines no worker can be named for (the launcher's, the scheduler's) are context, not a collateral rank.
        if (!p.rank && !p.local_rank && !p.pid) continue;
        if (d.rank_not_applicable && p.rank && in_list_int(d.affected_ranks, *p.rank)) continue;
        CollateralRank r;
        r.rank = p.rank;
        r.process = p.name();
        r.host = p.host();
        const auto& pool = p.direct_collateral.empty() ? p.collateral : p.direct_collateral;
        const Event* head = pool.front();
        for (const Event* e : pool)
            if (severity_level(*e->signature->entry) > severity_level(*head->signature->entry)) head = e;
        r.failure = head->signature->entry;
        r.evidence.push_back(head->evidence);
        d.collateral.push_back(std::move(r));
    }
    // Ranks in order, the processes without one after them: a 64-rank list must be readable.
    std::stable_sort(d.collateral.begin(), d.collateral.end(), [](const CollateralRank& a, const CollateralRank& b) {
        return std::make_tuple(!a.rank, a.rank.value_or(0)) < std::make_tuple(!b.rank, b.rank.value_or(0));
    });
}

// torchrun's own verdict, when it disagrees.
void note_root_cause(const Timeline& t, Diagnosis& d) {
    if (!d.initiating_rank) return;
    for (const ExitRecord& x : t.exits) {
        if (!x.root_cause_section || !x.rank || *x.rank == *d.initiating_rank) continue;
        d.notes.push_back("torchrun's \"Root Cause (first observed failure)\" names rank " + std::to_string(*x.rank) +
                          " (" + x.evidence.file + ":" + std::to_string(x.evidence.line) +
                          "), but that is only the earliest failure one agent recorded (by its workers' error-file "
                          "times, or by when it polled their exits when they wrote none, to the second); rank " +
                          std::to_string(*d.initiating_rank) + " failed first.");
    }
}

std::vector<RankState> rank_states(const Context& c, const Process* chosen, const Diagnosis* dx) {
    std::vector<RankState> out;
    for (const Process& p : c.table.processes()) {
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
        else if (c.first_cause(p)) s.state = "failed";
        else s.state = "silent";
        out.push_back(std::move(s));
    }
    return out;
}

void warn_foreign_gpu_lines(const ProcessTable& table, Report& report) {
    if (table.foreign_gpu_events().empty()) return;
    const Evidence& ev = table.foreign_gpu_events().front()->evidence;
    report.warnings.push_back(std::to_string(table.foreign_gpu_events().size()) +
                              " kernel line(s) about a GPU and a process that are not this job's (no NCCL line names "
                              "that bus id or pid) were left out, e.g. " + ev.file + ":" + std::to_string(ev.line));
}

struct Verdict {
    Report report;
    Decision decision;
};

Verdict reason_once(const Timeline& t, const KnowledgeBase& kb) {
    Report report;
    report.inputs = t.sources;
    report.torchrun = t.torchrun;
    std::vector<Stack> seen(t.stacks.begin(), t.stacks.end());
    if (t.torchrun) seen.push_back(Stack::torchrun);
    report.stacks = ordered_stacks(seen);
    report.bytes = t.bytes;
    report.lines = t.lines;
    report.warnings = t.warnings;
    if (t.torch_known) report.torch_versions = t.torch.str();

    const ProcessTable table(t);
    const JobModel model = build_job_model(table, t);
    const Decision decision = decide(model.facts);
    report.world_size = model.world;
    warn_foreign_gpu_lines(table, report);

    Context c{t, kb, table, model, decision, {model.consequences.begin(), model.consequences.end()}, {}};
    c.ignored.insert(model.unexplained_ends.begin(), model.unexplained_ends.end());
    c.ignored.insert(model.fallout.begin(), model.fallout.end());
    for (const Process& p : table.processes())
        for (const Event* e : p.collateral) c.collateral_kinds.insert(e->signature->entry);

    Diagnosis d;
    const Process* chosen = nullptr;
    switch (decision.outcome) {
        case Outcome::nothing: break;
        case Outcome::determined: explain_determined(c, d, chosen); break;
        case Outcome::systemic: explain_systemic(c, d); break;
        case Outcome::undetermined: explain_undetermined(c, d); break;
    }
    explain_consequences(c, d);
    explain_fallout(c, d);
    if (decision.missing == MissingFact::workers_output)
        d.missing.push_back("What the workers were doing before the job was ended: none of their own output is here, "
                            "so a rank that failed or stalled long before the end is not ruled out. Their logs (the last "
                            "step each rank logged, any collective timeout or error before the end) decide it.");
    infer_single_host(t, d);
    if (d.failure) {
        d.fix = advise(*d.failure, t, table.workers_are_srun_tasks());
        d.verify = d.failure->verify;
    }
    list_collateral(c, chosen, d);
    note_root_cause(t, d);
    if (d.failure || d.undetermined) report.diagnoses.push_back(std::move(d));
    report.ranks = rank_states(c, chosen, report.diagnoses.empty() ? nullptr : &report.diagnoses.front());
    return {std::move(report), decision};
}

// The launch attempts the logs tell apart (an elastic job that restarted its workers), in order: those in which
// some worker wrote a line. The agent's lines after its last restart with no worker of its own (a rendezvous that
// never completed) close the attempt before them.
std::set<std::uint16_t> attempts_of(const Timeline& t) {
    std::set<std::uint16_t> out;
    for (const Event& e : t.events)
        if (e.attempt && (e.key.rank || e.key.local_rank) && !e.from_launcher) out.insert(*e.attempt);
    return out;
}

std::uint16_t attempt_of(std::uint16_t a, const std::set<std::uint16_t>& attempts) {
    auto it = attempts.upper_bound(a);
    return it == attempts.begin() ? *it : *std::prev(it);
}

// The lines of one attempt, with the lines whose attempt is unknown (files that say nothing of restarts).
Timeline attempt_view(const Timeline& t, std::uint16_t attempt, const std::set<std::uint16_t>& attempts) {
    Timeline v = t;
    std::erase_if(v.events, [&](const Event& e) { return e.attempt && attempt_of(*e.attempt, attempts) != attempt; });
    std::erase_if(v.exits, [&](const ExitRecord& x) { return x.attempt && attempt_of(*x.attempt, attempts) != attempt; });
    return v;
}

// An attempt that shows only collateral errors right after one that failed on its own is the restart's fallout
// (a store reused by the new rendezvous, peers gone): the earlier failure is what ended the job.
bool only_fallout(const Decision& d) {
    return d.outcome == Outcome::undetermined && d.missing == MissingFact::collateral_only;
}

}  // namespace

Report reason(const Timeline& t, const KnowledgeBase& kb) {
    const std::set<std::uint16_t> attempts = attempts_of(t);
    if (attempts.size() <= 1) return reason_once(t, kb).report;

    // Each attempt gets its own verdict; the one that ended the job leads: the last one, unless it is only the
    // fallout of the one before.
    std::vector<std::pair<std::uint16_t, Verdict>> verdicts;
    for (std::uint16_t a : attempts) verdicts.emplace_back(a, reason_once(attempt_view(t, a, attempts), kb));
    std::size_t lead = verdicts.size() - 1;
    while (lead > 0 && only_fallout(verdicts[lead].second.decision) && !only_fallout(verdicts[lead - 1].second.decision) &&
           verdicts[lead - 1].second.decision.outcome != Outcome::nothing)
        --lead;
    Report report = std::move(verdicts[lead].second.report);
    report.inputs = t.sources;
    report.bytes = t.bytes;
    report.lines = t.lines;
    auto label = [&](std::uint16_t a) {
        return "attempt " + std::to_string(a) + " (" + std::to_string(attempts.size()) + " attempts in these logs)";
    };
    for (Diagnosis& d : report.diagnoses) {
        d.notes.insert(d.notes.begin(), "The job restarted its workers; this is the verdict on " + label(verdicts[lead].first) +
                                            (lead + 1 == verdicts.size() ? ", the last one." :
                                             ", whose failure the later attempts only suffered from."));
    }
    for (std::size_t i = verdicts.size(); i-- > 0;) {
        if (i == lead) continue;
        for (Diagnosis& d : verdicts[i].second.report.diagnoses) {
            d.notes.insert(d.notes.begin(), "The verdict on " + label(verdicts[i].first) + ".");
            report.diagnoses.push_back(std::move(d));
        }
    }
    return report;
}

}  // namespace denpex
