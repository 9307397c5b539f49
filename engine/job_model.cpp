#include "engine/job_model.hpp"

#include <algorithm>

#include "engine/bounded_number.hpp"
#include "engine/evidence_text.hpp"
#include "engine/job_topology.hpp"
#include "engine/oom_request.hpp"
#include "engine/time_order.hpp"

namespace denpex {
namespace {

// How long before the first timeout's start a stall may already have been under way and the initiator still be
// alive: the ranks that block first enter the collective up to a step before the one that fails (an OOM in its
// backward pass while the others already wait in all_reduce).
constexpr double kStallMarginSeconds = 300;

// Whether `a` happened before `b`. A launcher's report is written after the fact (torchrun's summary at the end
// of the run), so its place in a file orders nothing: only its own time does.
std::optional<bool> before(const Event& a, const Event& b) {
    if (a.from_launcher || b.from_launcher) {
        if (auto gap = seconds_between(a, b); gap && *gap != 0) return *gap > 0;
        return std::nullopt;
    }
    return precedes(a, b);
}

// The earliest time an event can have happened, when it carries a dated or same-clock time.
std::optional<double> earliest_time(const Event& e) {
    if (!e.time || e.time->uptime || e.time->relative) return std::nullopt;
    return e.time->seconds;
}

StallOnset find_stall(const ProcessTable& table) {
    StallOnset s;
    for (const Process& p : table.processes())
        for (const Event* e : p.direct_collateral) {
            if (!e->shows_wait()) continue;
            if (!s.detected || before(*e, *s.detected).value_or(e->order < s.detected->order)) s.detected = e;
            auto ms = e->number("timeout_ms");
            // Only a line with its own time dates its wait; one whose time is carried from above is later than that.
            if (ms && e->time && e->time_exact && e->time->has_date) {
                double since = e->time->seconds - static_cast<double>(*ms) / 1000.0;
                if (!s.blocked_since || since < *s.blocked_since) s.blocked_since = since;
            }
        }
    return s;
}

// An outside end (a kill, the scheduler's limit) after the ranks had begun to wait is the teardown of the stall.
bool after_stall(const Event& e, const ProcessTable& table, const StallOnset& stall) {
    if (stall.blocked_since && e.time && e.time->has_date && earliest_time(e) &&
        *earliest_time(e) > *stall.blocked_since + kStallMarginSeconds)
        return true;
    for (const Process& p : table.processes())
        for (const Event* c : p.direct_collateral)
            if (c->shows_wait() && before(*c, e).value_or(false)) return true;
    return false;
}

// An outside end of the whole job after it had already begun to fail: a worker's error of any kind, a lost peer or
// store, before it (the cancel that came hours after a node died) is the end of a failed job. Only for ends of the
// whole job: one worker's kill is recorded after the fact, after its peers had already reacted to it.
const Event* failing_before(const Event& e, const ProcessTable& table) {
    const Event* first = nullptr;
    for (const Process& p : table.processes())
        for (const Event* c : p.events) {
            if (c->role == Role::context || c == &e || c->in_summary) continue;
            if (c->signature->entry->ends_from_outside != Entry::OutsideEnd::no) continue;
            // The agent's own lines (tearing its workers down) stand where they were written, unlike its summary.
            const auto ordered = c->from_launcher ? precedes(*c, e) : before(*c, e);
            if (ordered.value_or(false) && (!first || c->order < first->order)) first = c;
        }
    return first;
}

// The launcher's lines that say it began to end the whole step (Mark::step_teardown).
std::vector<const Event*> step_teardowns(const ProcessTable& table) {
    std::vector<const Event*> out;
    for (const Process& p : table.processes())
        for (const Event* e : p.events)
            if (e->signature->mark == Mark::step_teardown) out.push_back(e);
    return out;
}

// A launcher's record of a worker's end written after the same launcher began to end the step (srun's "task 3:
// Killed" after "Terminating StepId=..."): the teardown ended that worker. Only the launcher's own stream orders the
// two; its report of the worker that failed first comes before the teardown it set off.
const Event* teardown_before(const Event& e, const std::vector<const Event*>& teardowns) {
    if (!e.from_launcher || e.in_summary) return nullptr;
    for (const Event* t : teardowns)
        if (t->source == e.source && precedes(*t, e).value_or(false)) return t;
    return nullptr;
}

void find_consequences(const ProcessTable& table, JobModel& m) {
    const std::vector<const Event*> teardowns = step_teardowns(table);
    for (const Process& p : table.processes())
        for (const Event* e : p.events) {
            if (e->role != Role::initiating) continue;
            if (const Event* t = teardown_before(*e, teardowns)) {
                m.consequences.push_back(e);
                m.consequence_of[e] = t;
                continue;
            }
            if (e->signature->entry->ends_from_outside == Entry::OutsideEnd::no) continue;
            const Event* after = m.stall.detected && after_stall(*e, table, m.stall) ? m.stall.detected
                                      : e->signature->entry->scope == "job" ? failing_before(*e, table) : nullptr;
            if (!after) continue;
            m.consequences.push_back(e);
            m.consequence_of[e] = after;
        }
}

// Another writer's record of a process's end (a runtime's "worker died, Worker PID: P", the kernel's kill of pid P)
// tells of something after everything the process wrote itself, wherever the file places it (relayed output lags).
bool record_by_another(const Event& e, const Process& p) {
    if (!p.rank && !p.local_rank && !p.pid) return false;   // an anonymous stream: its lines are its own
    return !e.key.rank && !e.key.local_rank && (!e.key.pid || !p.pid || *e.key.pid != *p.pid);
}

// How many lines below a collective's traceback frame its allocation's error may stand (the frame's code line, a
// caret line, the error).
constexpr std::uint64_t kFrameToErrorLines = 4;

// An out-of-memory error asking for more than the whole device, right below the frame of a collective that allocates
// the size its peers sent (Mark::size_from_peers): the size came from a broken collective.
bool size_from_broken_collective(const Event& e, const Process& p) {
    if (!read_oom_request(e.evidence.text).exceeds_device()) return false;
    return std::any_of(p.events.begin(), p.events.end(), [&](const Event* f) {
        return f->signature->mark == Mark::size_from_peers && f->evidence.file == e.evidence.file &&
               f->evidence.line < e.evidence.line && e.evidence.line - f->evidence.line <= kFrameToErrorLines;
    });
}

void find_fallout(const ProcessTable& table, JobModel& m) {
    for (const Process& p : table.processes())
        for (const Event* e : p.events) {
            if (e->role != Role::initiating) continue;
            const bool waited_before = std::any_of(p.direct_collateral.begin(), p.direct_collateral.end(), [&](const Event* w) {
                return w->shows_wait() && (record_by_another(*e, p) || before(*w, *e).value_or(false));
            });
            if (waited_before) m.fallout_cause[e] = JobModel::FalloutCause::after_own_wait;
            else if (size_from_broken_collective(*e, p)) m.fallout_cause[e] = JobModel::FalloutCause::size_from_broken_collective;
            else continue;
            m.fallout.push_back(e);
        }
}

// The c10d rendezvous store is served by the agent whose own address is the endpoint; the others connect to it.
// Every node the launch allows present (--nnodes N, or the most an elastic range N:M admits), none with a worker,
// each agent unable to reach the store: no node served it. With a node's log missing, that node may be the one that
// failed to serve it.
std::vector<const Event*> find_store_served_by_none(const ProcessTable& table, const Timeline& t) {
    const auto nodes = t.nodes_expected() ? t.nodes_expected() : t.max_nodes;
    if (!nodes || *nodes < 2) return {};
    std::map<std::pair<std::uint32_t, std::string>, const Event*> per_node;
    for (const Process& p : table.processes()) {
        if (p.rank || p.local_rank) return {};   // workers ran
        for (const Event* e : p.events)
            if (e->signature->mark == Mark::no_store)
                per_node.try_emplace({e->key.group, e->host.value_or("")}, e);
    }
    if (static_cast<int>(per_node.size()) < *nodes) return {};
    std::vector<const Event*> out;
    for (const auto& [node, e] : per_node) out.push_back(e);
    return out;
}

std::vector<const Event*> find_private_rendezvous(const ProcessTable& table, const Timeline& t) {
    const auto nodes = t.nodes_expected();
    if (!nodes || *nodes < 2 || !t.rendezvous_on_loopback) return {};
    std::vector<const Event*> out;
    for (const Process& p : table.processes()) {
        if (p.rank || p.local_rank) return {};   // workers ran
        for (const Event* e : p.events)
            if (e->signature->mark == Mark::rendezvous_incomplete || e->signature->mark == Mark::no_store) out.push_back(e);
    }
    return out;
}

// NCCL's transport on the loopback interface (Mark::transport_on_loopback) in a job of two nodes or more: connections
// between nodes cannot succeed, so when every failure here is of communication (or a launcher's report of a worker's
// end), the setting is the cause (NCCL_SOCKET_IFNAME=lo, a host name resolving to 127.0.x.x). One line per host.
std::vector<const Event*> find_transport_on_loopback(const ProcessTable& table, const Timeline& t) {
    std::set<std::string> hosts;
    std::map<std::string, const Event*> per_host;
    bool failed = false;
    for (const Process& p : table.processes()) {
        for (const std::string& h : p.hosts) hosts.insert(std::string(short_host_name(h)));
        for (const Event* e : p.events) {
            if (e->signature->mark == Mark::transport_on_loopback) {
                per_host.try_emplace(std::string(short_host_name(e->host.value_or(""))), e);
                continue;
            }
            if (e->role == Role::context) continue;
            const bool launcher = e->signature->entry->category == "Launcher";
            if (e->role == Role::initiating && !communication_error(*e) && !launcher) return {};
            failed = true;
        }
    }
    const std::size_t nodes = std::max<std::size_t>(static_cast<std::size_t>(t.nodes_expected().value_or(0)), hosts.size());
    if (nodes < 2 || per_host.empty() || !failed) return {};
    std::vector<const Event*> out;
    for (const auto& [host, e] : per_host) out.push_back(e);
    return out;
}

// A collective timeout under a second: NCCL's first collective alone (communicator set-up) takes longer, so a watchdog
// with such a limit fires on every rank whether or not any rank is at fault.
constexpr long long kShortestPlausibleTimeoutMs = 1000;

// One wait per rank of the world, each the first of its direct collateral that `waited` accepts, from ranks that report
// no error of their own; empty when the world is unknown or any rank lacks such a wait.
template <class Pred>
std::vector<const Event*> every_rank_waiting(const ProcessTable& table, std::optional<int> world, Pred waited) {
    if (!world || *world < 2) return {};
    std::vector<const Event*> out;
    for (int r = 0; r < *world; ++r) {
        const Process* p = table.by_rank(r);
        if (!p || p->first_initiating()) return {};
        const auto wait = std::find_if(p->direct_collateral.begin(), p->direct_collateral.end(),
                                       [&](const Event* e) { return e->shows_wait() && waited(*e); });
        if (wait == p->direct_collateral.end()) return {};
        out.push_back(*wait);
    }
    return out;
}

std::vector<const Event*> find_timeout_too_short(const ProcessTable& table, std::optional<int> world) {
    return every_rank_waiting(table, world, [](const Event& e) {
        const auto ms = e.number("timeout_ms");
        return ms && *ms < kShortestPlausibleTimeoutMs;
    });
}

// Every rank of the world waited in the default group's first collective (sequence number 1) on the same work, sizes
// included, and none reports an error of its own: every rank arrived, so no rank was missing from it; the
// communicator's transport never completed one collective (NCCL's P2P path on GPUs without working peer access, a
// network that passes set-up and not data).
std::vector<const Event*> find_first_collective_hung(const ProcessTable& table, std::optional<int> world) {
    const auto out = every_rank_waiting(table, world, [](const Event& e) {
        return e.process_group.empty() && e.number("seq") == 1;
    });
    if (out.empty()) return {};
    // The same work on every rank: a rank passing another op (or size) would hang them all too. A descriptor without
    // sizes (before 2.1) compares the op alone; a size mismatch in the job's very first collective, with every op
    // alike, is left as the verdict's low confidence already allows.
    auto work = [](const Event* e) {
        auto op = e->captures.find("op"), shape = e->captures.find("shape");
        if (op == e->captures.end()) return std::string();
        return shape == e->captures.end() ? op->second : op->second + shape->second;
    };
    const std::string first = work(out.front());
    if (first.empty() || !std::all_of(out.begin(), out.end(), [&](const Event* e) { return work(e) == first; }))
        return {};
    return out;
}

// Every rank of the world failed to reach one and the same peer (NCCL's bootstrap root, the store's host), with no
// error of its own: the ranks of that peer's own host too. A rank that died would not report failing to reach
// itself, and would leave its own trace or none, so no rank's failure explains it: the address, or the network path
// to it, is wrong for everyone. One error per rank, the first naming the peer.
std::vector<const Event*> find_one_peer_unreachable(const ProcessTable& table, std::optional<int> world) {
    if (!world || *world < 2) return {};
    std::vector<const Event*> out;
    std::string peer;
    for (int r = 0; r < *world; ++r) {
        const Process* p = table.by_rank(r);
        if (!p || p->first_initiating()) return {};
        const Event* reaching = nullptr;
        for (const Event* e : p->direct_collateral) {
            const auto named = e->captures.find("peer");
            if (named == e->captures.end() || !communication_error(*e)) continue;
            const std::string host = host_of_peer(named->second);
            if (host.empty()) continue;
            if (peer.empty()) peer = host;
            if (host != peer) return {};
            reaching = e;
            break;
        }
        if (!reaching) return {};
        out.push_back(reaching);
    }
    return out;
}

// Start-up announcements of global ranks (Mark::announces_rank), counted per attempt: a rank announced by two
// processes while some rank of the announced world is announced by none. A restart announces every rank again, so
// only one attempt's announcements are compared; a world every rank of which announced is no duplication.
std::vector<const Event*> find_duplicate_ranks(const ProcessTable& table) {
    std::map<int, std::map<long long, std::vector<const Event*>>> by_attempt;   // attempt -> rank -> announcements
    std::map<int, long long> world;
    for (const Process& p : table.processes())
        for (const Event* e : p.events) {
            if (e->signature->mark != Mark::announces_rank) continue;
            const auto rank = e->number("announced_rank"), size = e->number("announced_world");
            if (!rank || !size || *size > kMaxWorld || *rank >= *size) continue;
            const int attempt = e->attempt.value_or(0);
            by_attempt[attempt][*rank].push_back(e);
            world[attempt] = std::max(world[attempt], *size);
        }
    for (const auto& [attempt, ranks] : by_attempt) {
        const bool some_unannounced = static_cast<long long>(ranks.size()) < world[attempt];
        for (const auto& [rank, said] : ranks)
            if (said.size() >= 2 && some_unannounced) return {said[0], said[1]};
    }
    return {};
}

// The store-based barrier's count only means "started twice" in a job that never restarted: the barrier's key lives
// in the store, so a restarted attempt's workers add to the count its first attempt left (world_size=2,
// worker_count=4 after one restart, with nothing misconfigured).
std::vector<const Event*> find_overfull_world(const ProcessTable& table) {
    std::vector<const Event*> out;
    for (const Process& p : table.processes())
        for (const Event* e : p.events) {
            if (e->signature->mark == Mark::ends_attempt || e->attempt.value_or(0) > 0) return {};
            const auto world = e->number("barrier_world"), joined = e->number("joined");
            if (world && joined && *joined > *world && out.size() < 4) out.push_back(e);
        }
    return out;
}

// With ranks given out twice, no process can finish start-up (the ranks above the duplicated ones never join), so an
// end of the whole job from outside (a time limit, a cancel) is what followed, never the cause.
void mark_outside_ends_as_consequences(const ProcessTable& table, JobModel& m) {
    for (const Process& p : table.processes())
        for (const Event* e : p.events)
            if (e->role == Role::initiating && e->signature->entry->ends_from_outside != Entry::OutsideEnd::no &&
                std::find(m.consequences.begin(), m.consequences.end(), e) == m.consequences.end()) {
                m.consequences.push_back(e);
                m.consequence_of[e] = m.duplicate_ranks.front();
            }
}

// The whole job ended from outside (the scheduler's limit, a cancel, an eviction) and no worker's own output is here:
// whether the ranks had stalled long before is not shown, so the end may be the consequence of a failure unseen.
bool outside_end_without_workers(const ProcessTable& table, const std::vector<const Process*>& systemic) {
    const bool outside_end = std::all_of(systemic.begin(), systemic.end(), [](const Process* p) {
        const Event* e = p->first_initiating();
        return e && e->signature->entry->ends_from_outside != Entry::OutsideEnd::no;
    });
    if (!outside_end) return false;
    const bool worker_output = std::any_of(table.processes().begin(), table.processes().end(), [](const Process& p) {
        return (p.rank || p.local_rank) && p.own_lines > 0;
    });
    return !worker_output && !table.has_unclaimed_worker_output();
}

const Event* first_not_in(const std::vector<const Event*>& events, const std::set<const Event*>& ignored) {
    for (const Event* e : events)
        if (!ignored.count(e)) return e;
    return nullptr;
}

// Whether another process's collateral names this one: a rank capture equal to its rank, or a local rank on its
// host ("Connection closed by localRank 2"), or a peer address on its host when the job spans several hosts.
bool named_by_peers(const Process& p, const ProcessTable& table) {
    const auto host = p.host();
    for (const Process& q : table.processes()) {
        if (&q == &p) continue;
        for (const Event* c : q.direct_collateral) {
            if (auto r = c->number("rank"); r && p.rank && *r == *p.rank) return true;
            if (auto l = c->number("local_rank"); l && p.local_rank && *l == *p.local_rank && host &&
                                                            c->host == host && q.host() == host)
                return true;
            if (auto it = c->captures.find("peer"); it != c->captures.end() && host) {
                std::string h = host_of_peer(it->second);
                if (!h.empty() && same_host(h, *host) && q.host() && !same_host(*q.host(), *host)) return true;
            }
        }
    }
    return false;
}

// Whether every other rank of the world is here and shows collateral, so that the others' errors, taken together,
// leave only this process: what they waited for was it.
bool only_one_not_waiting(const Process& p, const ProcessTable& table, std::optional<int> world) {
    if (!world || *world < 2 || !p.rank) return false;
    if (std::any_of(p.direct_collateral.begin(), p.direct_collateral.end(), [](const Event* e) { return e->shows_wait(); }))
        return false;   // it waited too
    for (int r = 0; r < *world; ++r) {
        if (r == *p.rank) continue;
        const Process* q = table.by_rank(r);
        if (!q || q->direct_collateral.empty()) return false;
    }
    return true;
}

// Whether its error comes before the others' collateral in causal time (real stamps, not file position alone), or
// the others' timeouts date the start of their wait to about its error.
bool first_in_time(const Event& e, const Process& p, const ProcessTable& table, const StallOnset& stall) {
    if (e.from_launcher) return false;
    if (stall.blocked_since && e.time_exact && e.time && e.time->has_date &&
        std::abs(e.time->seconds - *stall.blocked_since) <= kStallMarginSeconds)
        return true;
    bool after_some = false, before_one = false;
    for (const Process& q : table.processes()) {
        if (&q == &p) continue;
        for (const Event* c : q.direct_collateral) {
            if (!c->time || !e.time || c->source == e.source) continue;   // stamps from two clocks, or none
            auto o = precedes(e, *c);
            if (o && *o) before_one = true;
            if (o && !*o) after_some = true;
        }
    }
    return before_one && !after_some;
}

// An initiating event on this process that another record (the kernel's OOM killer by pid, an Xid by bus id)
// attributes to it beside its own output.
bool recorded_outside(const Process& p, const std::set<const Event*>& ignored) {
    bool own = false, outside = false;
    for (const Event* e : p.events) {
        if (e->role != Role::initiating || ignored.count(e)) continue;
        const bool attributed = !e->key.rank && !e->key.local_rank && p.rank && !e->from_launcher &&
                                (e->captures.count("pid") || e->captures.count("pci"));
        (attributed ? outside : own) = true;
    }
    return own && outside;
}

// What a silent rank's silence is worth. Silence counts as evidence only where its stream is shown to be here and
// to cover the failure: its lines share a stream with the others' errors. A record that it was still running while
// the others waited (the agent's SIGTERM at teardown, output nobody else claims) is evidence of its own.
// Output no rank claims that goes on after the others began to wait (a progress bar still moving in the same file,
// a line dated later): some worker was alive and not waiting then.
bool unclaimed_output_after(const ProcessTable& table, const StallOnset& stall) {
    if (!stall.detected) return false;
    const Event& w = *stall.detected;
    for (const Process& p : table.processes()) {
        if (p.rank || p.local_rank || p.own_lines <= p.events.size()) continue;
        const Evidence& last = p.summary.last_line;
        const bool later_in_file = last.file == w.evidence.file && last.line > w.evidence.line;
        const bool dated_later = p.summary.last_time && w.time && w.time->has_date && p.summary.last_time->has_date &&
                                 p.summary.last_time->seconds > w.time->seconds;
        if (later_in_file || dated_later) return true;
    }
    return false;
}

std::set<Support> silence_support(const Candidate& c, const ProcessTable& table, const StallOnset& stall) {
    std::set<Support> out;
    const Process* p = c.process;
    const bool shares_stream = p && std::any_of(table.processes().begin(), table.processes().end(), [&](const Process& q) {
        return &q != p && q.rank && q.group == p->group && !q.direct_collateral.empty();
    });
    out.insert(shares_stream && !c.stream_may_be_cut ? Support::present_silent : Support::silence);
    // The agent's SIGTERM to it at teardown is a record that it was still running; so is output nobody claims that
    // goes on after the others began to wait. Output nobody claims from before (prose pasted above an excerpt) may be
    // anyone's: an inference, no corroboration.
    if (p ? p->sigterm_by_agent : table.has_unclaimed_sigterm_pid() || unclaimed_output_after(table, stall))
        out.insert(Support::outside_record);
    return out;
}

// The clean program exits ("destroy_process_group() was not called before program exit" with no error of the
// process before it), kept only when every error in the job comes after the first of them.
std::vector<const Event*> find_finished(const ProcessTable& table) {
    std::vector<const Event*> exits;
    for (const Process& p : table.processes())
        for (const Event* e : p.events) {
            if (e->role != Role::context) break;   // an error of its own came first: not a clean exit
            if (e->signature->mark == Mark::reached_exit) {
                exits.push_back(e);
                break;
            }
        }
    if (exits.empty()) return exits;
    const Event* first = *std::min_element(exits.begin(), exits.end(), [](const Event* a, const Event* b) {
        return before(*a, *b).value_or(a->order < b->order);
    });
    for (const Process& p : table.processes())
        for (const Event* e : p.events)
            if (e->role != Role::context && !before(*first, *e).value_or(false)) return {};
    return exits;
}

// Some process waited in a collective (a timeout with its limit or sequence number).
bool any_wait(const ProcessTable& table) {
    return std::any_of(table.processes().begin(), table.processes().end(), [](const Process& q) {
        return std::any_of(q.direct_collateral.begin(), q.direct_collateral.end(), [](const Event* e) { return e->shows_wait(); });
    });
}

Suspect suspect_of(const Candidate& c, const Event* adopted, const ProcessTable& table, const StallOnset& stall,
                   std::optional<int> world, const std::set<const Event*>& ignored) {
    Suspect s;
    s.rank = c.rank;
    s.strategy = c.strategy;
    s.strength = c.strength;
    s.rank_inferred = c.process && !c.process->rank_inference.empty();
    switch (c.strategy) {
        case Strategy::initiating_event: {
            const Process& p = *c.process;
            const Event* e = first_not_in(p.specific_initiating, ignored);
            if (!e) e = first_not_in(p.generic_initiating, ignored);
            if (e && e->signature->mark == Mark::death_without_cause && any_wait(table))
                s.support.insert(Support::order);   // the first death the runtime saw; a waiter's abort reads the same
            else
                s.support.insert(e && e->from_launcher ? Support::outside_record : Support::own_error);
            if (e && first_in_time(*e, p, table, stall)) s.support.insert(Support::first_in_time);
            if (named_by_peers(p, table) || only_one_not_waiting(p, table, world)) s.support.insert(Support::peers_point_at);
            if (recorded_outside(p, ignored)) s.support.insert(Support::outside_record);
            break;
        }
        case Strategy::silent_rank: s.support = silence_support(c, table, stall); break;
        case Strategy::sequence_lag: s.support.insert(Support::sequence_lag); break;
        case Strategy::desync_report: s.support.insert(Support::desync_report); break;
        case Strategy::idle_gpu:
            s.support.insert(Support::utilization);
            s.rank_inferred = true;
            break;
        case Strategy::mismatch_minority: s.support = {Support::own_error, Support::peers_point_at}; break;
        case Strategy::own_end: s.support.insert(Support::outside_record); break;
        case Strategy::work_minority: s.support.insert(Support::work_compared); break;
        // The fault's own completion status, against flushes and waits that can only come after it: causal order.
        case Strategy::first_transport_fault: s.support.insert(Support::first_in_time); break;
        case Strategy::mismatch_named:
            // Proven when the ranks shown to agree are the whole world but one; otherwise read from the order only.
            if (c.strength != Strength::strong) {
                s.support = {Support::order};
                break;
            }
            s.support = {Support::work_compared};
            if (c.process && c.process->first_initiating()) s.support.insert(Support::own_error);
            break;
        case Strategy::agent_first_exit:
            // The agent recorded how it ended (it failed; the others were sent SIGTERM): a record, not only an order.
            s.support.insert(Support::outside_record);
            if (adopted) s.support.insert(Support::own_error);
            break;
    }
    return s;
}

// A silent rank the others waited for, and one error of its host that no line ties to a rank (the kernel's Xid or
// OOM-kill record naming a pid nobody claims), from before the others began to wait: the process that failed there
// is the one that went silent. The error is taken as that rank's and names the failure; the confidence stays the
// silence's (host and time tie them, not a pid or a bus).
void adopt_for_silent_rank(JobModel& m, std::vector<Candidate>& cs, const ProcessTable& table) {
    if (m.adopted || m.init.candidate || m.init.unranked.size() != 1 || !m.init.systemic.empty()) return;
    auto silent = std::find_if(cs.begin(), cs.end(), [](const Candidate& c) { return c.strategy == Strategy::silent_rank; });
    if (silent == cs.end() || cs.size() != 1 || !silent->rank) return;
    const Process& unranked = *m.init.unranked.front();
    const Event* e = unranked.first_initiating();
    if (!e) return;
    // Tied to the silent rank by its host, or by the stream: a traceback without a prefix in the one file where the
    // ranks that waited wrote too (a single node's console, each worker's lines unprefixed).
    const bool in_waiters_stream = std::any_of(table.processes().begin(), table.processes().end(), [&](const Process& q) {
        return q.rank && q.rank != silent->rank && !q.direct_collateral.empty() &&
               q.direct_collateral.front()->evidence.file == e->evidence.file;
    });
    if (!e->host && !in_waiters_stream) return;
    const Process* rank_process = table.by_rank(*silent->rank);
    if (e->host && rank_process && !rank_process->hosts.empty() &&
        !std::any_of(rank_process->hosts.begin(), rank_process->hosts.end(),
                     [&](const std::string& h) { return short_host_name(h) == short_host_name(*e->host); }))
        return;
    if (m.stall.detected && before(*m.stall.detected, *e).value_or(false)) return;
    m.adopted = e;
    silent->evidence.push_back(e);
    silent->reason += " The only error here that no line ties to a rank, \"" + excerpt(e->evidence.text, 100) + "\" (" +
                      (e->host ? *e->host : e->evidence.file + ":" + std::to_string(e->evidence.line)) + "), comes from before the others began to wait: taken as rank " +
                      std::to_string(*silent->rank) + "'s failure.";
    m.init.unranked.clear();
}

// srun's report that several tasks exited ("srun: error: node: tasks 4-7: Exited with exit code 1") says nothing of
// why; when every task it lists printed an error of its own, those errors are why, and the report is no failure to
// place (not an exit left unexplained, nor an error whose rank is missing). A task is known by its `N: ` label; in
// output without labels, by the rank its lines carry ([rankN]:), as srun numbers one task per rank: were the tasks
// nodes instead (one torchrun per node), the workers' errors would still be why their node's task exited.
void ignore_explained_task_lists(const ProcessTable& table, const Timeline& t, std::set<const Event*>& ignored) {
    const bool labelled = std::any_of(table.processes().begin(), table.processes().end(),
                                      [&](const Process& p) { return t.groups[p.group].srun_task.has_value(); });
    std::set<int> reported;   // srun tasks that printed an error of their own (not srun's report about them)
    for (const Process& p : table.processes()) {
        const auto task = labelled ? t.groups[p.group].srun_task : p.rank;
        if (task && std::any_of(p.events.begin(), p.events.end(), [](const Event* e) {
                return e->role != Role::context && !e->captures.count("tasks");
            }))
            reported.insert(*task);
    }
    // Under torchrun a task is a node's agent: its exit follows the agent's summary of its failed workers, which is
    // why it exited.
    std::set<std::string, std::less<>> summarised_hosts;
    if (t.torchrun)
        for (const ExitRecord& x : t.exits)
            if (x.host) summarised_hosts.emplace(short_host_name(*x.host));
    for (const Process& p : table.processes())
        for (const Event* e : p.events) {
            if (!e->signature->fallback || ignored.count(e)) continue;
            const bool about_tasks = e->captures.count("task") || e->captures.count("tasks");
            if (about_tasks && e->host && summarised_hosts.count(short_host_name(*e->host))) {
                ignored.insert(e);
                continue;
            }
            const auto listed = e->captures.find("tasks");
            if (listed == e->captures.end()) continue;
            bool all = true;
            std::string_view rest = listed->second;
            while (all && !rest.empty()) {
                const std::size_t comma = rest.find(',');
                const auto task = parse_bounded<int>(rest.substr(0, comma), 0, kMaxWorld);
                all = task && reported.count(*task);
                rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
            }
            if (all) ignored.insert(e);
        }
}

// The agent's first exit is weak: it counts when nothing else decides, when it supports the lead, or when it names
// the rank of an error printed without one on the same node (then that error is adopted as the worker's).
void consider_agent_first_exit(JobModel& m, std::vector<Candidate>& cs, const ProcessTable& table, const Timeline& t) {
    auto c = agent_first_exit_strategy(table, t);
    if (!c) return;
    // Its own output is not here, and a sibling lost a peer or waited: exit code 1 is also how a rank that lost its
    // peer ends, and with ranks of the world on other nodes (or a world of unknown size) the peer lost may be there.
    // The first exit on this node then says nothing of who failed first.
    const bool sibling_hurt = std::any_of(table.processes().begin(), table.processes().end(), [&](const Process& q) {
        return &q != c->process && q.group == c->process->group && q.hurt_by_peers();
    });
    // Likewise SIGABRT: how the watchdog ends a rank that waited, on this node or on another.
    const bool aborted = std::any_of(t.exits.begin(), t.exits.end(), [&](const ExitRecord& x) {
        return x.exitcode == kExitSigabrt && table.resolve_exit(x) == c->process;
    });
    const bool world_open = !m.unseen.empty() || !m.world || c->process->rank_guessed;
    if (c->process->own_lines == 0 && (sibling_hurt || aborted) && world_open) return;
    const bool nothing_else = cs.empty() && m.init.systemic.empty() && m.init.unordered.empty() &&
                              m.init.unranked.empty() && m.init.disagreeing.empty();
    const bool supports = std::any_of(cs.begin(), cs.end(), [&](const Candidate& x) { return x.process == c->process; });
    // The one error printed without a rank may also have been ordered first among the job's errors (an unprefixed
    // traceback before a kernel record): it is still the only error of the agent's node.
    const Process* unranked = m.init.unranked.size() == 1 ? m.init.unranked.front() : nullptr;
    const bool ordered_unranked = !unranked && cs.size() == 1 && m.init.candidate &&
                                  cs.front().process == m.init.candidate->process && cs.front().process &&
                                  !cs.front().process->rank && !cs.front().process->local_rank;
    if (ordered_unranked) unranked = cs.front().process;
    const bool explains_unranked = unranked && (cs.empty() || (ordered_unranked && !c->process->first_initiating())) &&
                                   unranked->group == c->process->group;
    if (explains_unranked) {
        if (ordered_unranked) {
            cs.clear();
            m.init.candidate.reset();
        }
        m.adopted = unranked->first_initiating();
        c->strength = Strength::medium;
        c->evidence.push_back(m.adopted);
        c->reason += " The error its node's output prints without a rank, \"" + excerpt(m.adopted->evidence.text, 100) +
                     "\", is taken as that worker's.";
        m.init.unranked.clear();
    }
    if (nothing_else || supports || explains_unranked) cs.push_back(*c);
}

// Errors of the whole job whose line does not say why it ended (the agent's "Received SIGTERM"): no verdict of
// their own; the sender is the missing fact.
void collect_unexplained_ends(const ProcessTable& table, JobModel& m, std::set<const Event*>& ignored) {
    for (const Process& p : table.processes())
        for (const Event* e : p.events) {
            const Entry& entry = *e->signature->entry;
            if (e->role == Role::initiating && entry.scope == "job" &&
                entry.ends_from_outside == Entry::OutsideEnd::reason_unknown && !ignored.count(e)) {
                m.unexplained_ends.push_back(e);
                ignored.insert(e);
            }
        }
}

// Job-wide configurations the logs show (no node served the store, a private rendezvous, NCCL on loopback, a
// timeout shorter than the work, the first collective never finishing, duplicate ranks).
void find_configuration_facts(const ProcessTable& table, const Timeline& t, JobModel& m) {
    for (const Process& p : table.processes())
        for (const Event* e : p.events)
            if (e->role != Role::context) m.facts.any_failure = true;
    m.store_served_by_none = find_store_served_by_none(table, t);
    m.facts.no_node_served_store = !m.store_served_by_none.empty();
    m.private_rendezvous = find_private_rendezvous(table, t);
    m.facts.private_rendezvous = !m.private_rendezvous.empty();
    m.transport_on_loopback = find_transport_on_loopback(table, t);
    m.facts.transport_on_loopback = !m.transport_on_loopback.empty();
    m.timeout_too_short = find_timeout_too_short(table, m.world);
    m.facts.timeout_too_short = !m.timeout_too_short.empty();
    m.first_collective_hung = find_first_collective_hung(table, m.world);
    m.facts.first_collective_hung = !m.first_collective_hung.empty();
    m.facts.duplicate_ranks = !m.duplicate_ranks.empty();
    m.one_peer_unreachable = find_one_peer_unreachable(table, m.world);
    m.facts.one_peer_unreachable = !m.one_peer_unreachable.empty();
    m.diverged_sequences = find_diverged_sequences(table);
    m.facts.sequences_diverged = m.diverged_sequences.has_value();
}

// Every strategy's candidate, in the order the decision reads them.
void collect_candidates(const ProcessTable& table, const Timeline& t, JobModel& m) {
    std::vector<Candidate>& cs = m.candidates;
    if (m.init.candidate) cs.push_back(*m.init.candidate);
    // Work another rank completed had every rank of the group take part: no rank stalled before it, silent or not.
    if (!m.diverged_sequences)
        if (auto c = silent_rank_strategy(table, t, m.world)) cs.push_back(*c);
    if (!m.diverged_sequences)   // read once in find_configuration_facts; a rank behind is then no laggard
        if (auto c = sequence_lag_strategy(table)) cs.push_back(*c);
    if (auto c = desync_strategy(table)) cs.push_back(*c);
    if (auto c = idle_gpu_strategy(table, t, m.world)) cs.push_back(*c);
    if (auto c = mismatch_minority_strategy(table)) cs.push_back(*c);
    else if (MismatchReading named = mismatch_named_strategy(table, m.world); named.divergent)
        cs.push_back(*named.divergent);
    else if (named.even_split && !m.init.disagreeing.empty()) {
        // Every rank reported, none singled out: the ranks took different paths; no rank initiated it.
        m.init.systemic = std::move(m.init.disagreeing);
        m.init.disagreeing.clear();
    }
    if (auto c = work_minority_strategy(table)) cs.push_back(*c);
    if (!m.init.candidate)
        if (auto c = first_transport_fault_strategy(table, m.world)) cs.push_back(*c);
    if (auto c = own_end_strategy(table, t)) cs.push_back(*c);
    consider_agent_first_exit(m, cs, table, t);
    adopt_for_silent_rank(m, cs, table);
}

// Suspects name workers: one target per process, or per rank for a rank with no output here.
void assign_suspects(const ProcessTable& table, const std::set<const Event*>& ignored, JobModel& m) {
    std::map<const void*, std::size_t> targets;
    std::map<int, std::size_t> rank_targets;
    for (Candidate& c : m.candidates) {
        if (c.process && c.process->rank) c.rank = c.process->rank;
        Suspect s = suspect_of(c, m.adopted, table, m.stall, m.world, ignored);
        if (c.rank) s.target = rank_targets.try_emplace(*c.rank, rank_targets.size() + 1000000).first->second;
        else s.target = targets.try_emplace(c.process, targets.size()).first->second;
        m.facts.suspects.push_back(std::move(s));
    }
}

}  // namespace

JobModel build_job_model(const ProcessTable& table, const Timeline& t) {
    JobModel m;
    m.world = table.world_size();
    m.unseen = table.unseen_ranks(m.world);
    m.stall = find_stall(table);
    find_consequences(table, m);
    find_fallout(table, m);
    m.duplicate_ranks = find_duplicate_ranks(table);
    m.overfull_world = find_overfull_world(table);
    m.facts.overfull_world = !m.overfull_world.empty();
    if (!m.duplicate_ranks.empty()) mark_outside_ends_as_consequences(table, m);
    std::set<const Event*> ignored(m.consequences.begin(), m.consequences.end());
    ignored.insert(m.fallout.begin(), m.fallout.end());
    collect_unexplained_ends(table, m, ignored);
    ignore_explained_task_lists(table, t, ignored);
    find_configuration_facts(table, t, m);

    m.init = initiating_event_strategy(table, ignored);
    collect_candidates(table, t, m);
    assign_suspects(table, ignored, m);

    m.facts.systemic = !m.init.systemic.empty();
    m.facts.systemic_inferred = m.facts.systemic && m.init.systemic_inferred;
    m.facts.outside_end_without_workers = m.facts.systemic && outside_end_without_workers(table, m.init.systemic);
    m.facts.ranks_disagree = !m.init.disagreeing.empty();
    if (m.candidates.empty() && m.init.systemic.empty() && m.init.unranked.empty() && m.init.unordered.empty() &&
        m.init.disagreeing.empty()) {
        m.finished = find_finished(table);
        m.facts.after_finish = !m.finished.empty();
    }
    m.facts.unranked_failure = !m.init.unranked.empty();
    m.facts.unordered_failures = !m.init.unordered.empty();
    m.facts.unseen_ranks = static_cast<int>(m.unseen.size());
    return m;
}

}  // namespace denpex
