#include "engine/strategies.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <string_view>

#include "engine/evidence_text.hpp"
#include "engine/pci_address.hpp"
#include "engine/time_order.hpp"
#include "engine/wording.hpp"

namespace denpex {
namespace {

// How far apart (seconds) the same error on several ranks may be and still count as one systemic failure.
constexpr double kSimultaneousSeconds = 60;
// How many lines after one rank's error another rank's traceback may start and still count as failing with it.
constexpr std::uint64_t kConcurrentLines = 50;

std::vector<int> capture_ints(const Event& e, const char* name) {
    std::vector<int> out;
    auto it = e.captures.find(name);
    if (it == e.captures.end()) return out;
    const std::string& s = it->second;
    for (std::size_t i = 0; i < s.size();) {
        if (s[i] >= '0' && s[i] <= '9') {
            int v = 0;
            auto [p, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
            if (ec == std::errc()) out.push_back(v);
            i = static_cast<std::size_t>(p - s.data());
        } else {
            ++i;
        }
    }
    return out;
}

// The worker ended on SIGABRT, the watchdog's own abort, in a job where some rank shows a collective wait: a rank that
// waited ends exactly so, and nothing of the named worker's own says it did not.
bool aborted_like_a_waiter(const ExitRecord& record, const ProcessTable& table) {
    if (record.exitcode != kExitSigabrt) return false;
    return std::any_of(table.processes().begin(), table.processes().end(), [](const Process& q) {
        return std::any_of(q.direct_collateral.begin(), q.direct_collateral.end(),
                           [](const Event* e) { return e->shows_wait(); });
    });
}

// The launcher recorded `rank` ending as a waiter ends (above): the rank's silence in these inputs is then a stream
// not shown (its own watchdog abort is where it would be), not a rank that stopped taking part. A record of a worker
// no rank here is known for (the agent's "failed (exitcode: -6) local_rank: 1" with the summary that maps it cut
// away) may be that rank's as well.
bool recorded_ending_like_a_waiter(int rank, const ProcessTable& table, const Timeline& t) {
    return std::any_of(t.exits.begin(), t.exits.end(), [&](const ExitRecord& x) {
        const Process* p = table.resolve_exit(x);
        const std::optional<int> r = p && p->rank ? p->rank : x.rank;
        return (!r || r == rank) && aborted_like_a_waiter(x, table);
    });
}

}  // namespace

namespace {

const Event* first_kept(const std::vector<const Event*>& events, const std::set<const Event*>& ignored) {
    for (const Event* e : events)
        if (!ignored.count(e)) return e;
    return nullptr;
}

// A message with its incidental numbers masked (ranks, devices, pids, times, ports) but its quantities kept
// ("Tried to allocate 2.00 GiB"), and without the writer's prefix: two ranks' lines agree when their shapes do.
std::string message_shape(std::string_view text) {
    if (std::size_t prefix = text.rfind("]:", 64); prefix != std::string_view::npos) text.remove_prefix(prefix + 2);
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
            out += text[i++];
            continue;
        }
        std::size_t j = i;
        while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
        std::string_view rest = text.substr(j);
        const bool quantity = rest.size() >= 3 && rest[0] == ' ' && (rest.substr(1, 3) == "GiB" || rest.substr(1, 3) == "MiB" ||
                                                                     rest.substr(1, 3) == "KiB" || rest.substr(1, 2) == "GB" ||
                                                                     rest.substr(1, 2) == "MB");
        out += quantity ? std::string(text.substr(i, j - i)) : std::string("#");
        i = j;
    }
    return out;
}

}  // namespace

namespace {

// The initiating strategy's steps over one pool of failing processes. `first(p)` is the process's first error of the
// pool's kind (specific signatures when any process has one, else the generic exception), consequences left out.
class InitiatingPool {
public:
    InitiatingPool(const ProcessTable& table, const std::set<const Event*>& ignored) : table_(table), ignored_(ignored) {
        std::vector<const Process*> specific, generic;
        for (const Process& p : table.processes()) {
            if (first_kept(p.specific_initiating, ignored)) specific.push_back(&p);
            else if (first_kept(p.generic_initiating, ignored)) generic.push_back(&p);
        }
        use_specific_ = !specific.empty();
        pool_ = use_specific_ ? specific : generic;
    }

    InitiatingResult decide() {
        InitiatingResult out;
        if (pool_.empty()) return out;
        prefer_own_lines();
        absorb_unnamed();
        one_device_observed();
        if (set_aside_rank_comparisons(out)) return out;
        if (whole_job()) {
            out.systemic = pool_;
            return out;
        }
        if (pool_.size() == 1) one(out);
        else several(out);
        return out;
    }

private:
    const Event* first(const Process* p) const {
        return first_kept(use_specific_ ? p->specific_initiating : p->generic_initiating, ignored_);
    }

    // A failure seen by the worker itself outranks one only the launcher reports (an exit code in the summary,
    // printed after the fact), unless the launcher's is the only kind there is or came first. An own line that
    // names no worker (a scheduler's "Detected 1 oom-kill event") does not displace a launcher's report in the same
    // file that does ("task 6: Out Of Memory"): both are about one worker, and only the report says which.
    void prefer_own_lines() {
        auto reported_beside = [&](const Process* u) {
            return std::any_of(pool_.begin(), pool_.end(), [&](const Process* r) {
                return first(r)->from_launcher && (r->rank || r->local_rank) && first(r)->source == first(u)->source;
            });
        };
        std::vector<const Process*> direct;
        for (const Process* p : pool_) {
            if (first(p)->from_launcher) continue;
            if (!p->rank && !p->local_rank && reported_beside(p)) return;
            direct.push_back(p);
        }
        if (direct.empty() || direct.size() == pool_.size()) return;
        for (const Process* d : direct)
            for (const Process* p : pool_)
                if (first(p)->from_launcher && precedes(*first(p), *first(d)).value_or(false)) return;
        pool_ = direct;
    }

    // Reports of one GPU's failure by several observers (the kernel's Xid in kern.log, nvidia-smi's "GPU is lost"
    // pasted beside the training log): no worker among them, every report naming the same PCI device. One failure
    // seen several times, not several processes failing alike: the earliest report stands for it.
    void one_device_observed() {
        if (pool_.size() < 2) return;
        std::optional<std::string> device;
        for (const Process* p : pool_) {
            if (p->rank || p->local_rank) return;
            const auto pci = first(p)->captures.find("pci");
            if (pci == first(p)->captures.end()) return;
            const auto bus = bus_id_of_pci(pci->second);
            if (!bus || (device && *device != *bus)) return;
            device = bus;
        }
        const auto earliest = std::min_element(pool_.begin(), pool_.end(), [&](const Process* a, const Process* b) {
            const bool a_dated = first(a)->time_exact, b_dated = first(b)->time_exact;
            if (a_dated != b_dated) return a_dated;   // a dated report over one with no time of its own
            return precedes(*first(a), *first(b)).value_or(first(a)->order < first(b)->order);
        });
        pool_ = {*earliest};
    }

    // Lines with no rank at all, in a group where exactly one named process (a rank, or a local rank such as
    // mp.spawn's "Process 3") failed the same way, are that process's own lines printed without a prefix; unless
    // they name another pid, which is another worker.
    void absorb_unnamed() {
        std::vector<const Process*> named, unnamed;
        for (const Process* p : pool_) (p->rank || p->local_rank ? named : unnamed).push_back(p);
        if (named.empty()) return;
        // Several unnamed writers with pids of their own (eight `[host:pid:...] Caught signal 11` banners) are several
        // workers: which of them is the named one is not known, so none is absorbed.
        std::set<long> unnamed_pids;
        for (const Process* u : unnamed)
            if (u->pid) unnamed_pids.insert(*u->pid);
        if (unnamed_pids.size() > 1) return;
        std::vector<const Process*> kept = named;
        for (const Process* u : unnamed) {
            const bool absorbed = std::any_of(named.begin(), named.end(), [&](const Process* r) {
                const bool other_pid = u->pid && r->pid && *u->pid != *r->pid;
                return !other_pid && (r->group == u->group || named.size() == 1);
            });
            if (!absorbed) kept.push_back(u);
        }
        pool_ = kept;
    }

    // A check that compares ranks' values is raised by every rank that notices the difference: raising it names no
    // initiator. Such processes leave the pool when others failed on their own; when they are all there is, the
    // ranks disagree and the values compared, not the raisers, say which one diverged.
    bool set_aside_rank_comparisons(InitiatingResult& out) {
        std::vector<const Process*> own, comparing;
        for (const Process* p : pool_) (first(p)->signature->mark == Mark::compares_ranks ? comparing : own).push_back(p);
        if (comparing.empty()) return false;
        if (!own.empty()) {
            pool_ = own;
            return false;
        }
        out.disagreeing = comparing;
        return true;
    }

    // A failure of the whole job (the knowledge says so) has no initiating rank, whoever printed it; unless one
    // rank alone shows it while other workers show what its failure did to them (a collateral error, or the agent's
    // SIGTERM because that rank exited first): then it struck that rank only (DDP's unused parameters on the one
    // rank whose batch skipped a branch).
    bool whole_job() const {
        if (!std::all_of(pool_.begin(), pool_.end(), [&](const Process* p) { return first(p)->signature->entry->scope == "job"; }))
            return false;
        const bool one_rank_struck =
            pool_.size() == 1 && pool_.front()->rank &&
            std::any_of(table_.processes().begin(), table_.processes().end(), [&](const Process& q) {
                return &q != pool_.front() && (q.rank || q.local_rank || q.pid) && !q.collateral.empty();
            });
        return !one_rank_struck;
    }

    // Another rank opening a failure report of its own right then (a traceback whose end the logs cut off, with no
    // collateral error to explain it): two ranks failing at once, not one rank's failure.
    std::vector<const Process*> failing_with(const Process* p) const {
        std::vector<const Process*> concurrent{p};
        for (const Process& q : table_.processes()) {
            if (&q == p || !q.rank || !q.collateral.empty() || first_kept(q.specific_initiating, ignored_) ||
                first_kept(q.generic_initiating, ignored_))
                continue;
            for (const Event* e : q.events) {
                if (e->signature->mark != Mark::failure_start) continue;
                auto gap = seconds_between(*first(p), *e);
                bool close = (e->source == first(p)->source && e->order > first(p)->order &&
                              e->evidence.line - first(p)->evidence.line <= kConcurrentLines) ||
                             (gap && std::abs(*gap) <= kSimultaneousSeconds);
                if (close) {
                    concurrent.push_back(&q);
                    break;
                }
            }
        }
        return concurrent;
    }

    void one(InitiatingResult& out) const {
        const Process* p = pool_.front();
        if (!p->rank && !p->local_rank) {
            // The same report several times over in one unprefixed stream: several workers failed alike. Or their
            // reports were printed at the same moment, shredded into each other through the same frames.
            if (alike_reports(*p)) out.systemic.push_back(p);
            else if (interleaved_reports(*p)) {
                out.systemic.push_back(p);
                out.systemic_inferred = true;
            } else out.unranked.push_back(p);
            return;
        }
        if (auto concurrent = failing_with(p); concurrent.size() > 1) {
            out.systemic = concurrent;
            return;
        }
        Candidate c;
        c.process = p;
        c.strategy = Strategy::initiating_event;
        c.strength = use_specific_ ? Strength::strong : Strength::medium;
        for (const Event* e : use_specific_ ? p->specific_initiating : p->generic_initiating) {
            if (c.evidence.size() >= 3) break;
            if (!ignored_.count(e)) c.evidence.push_back(e);
        }
        c.reason = p->name() + " is the only process with an error of its own (" + first(p)->signature->entry->title +
                   "); the other processes show only collateral errors or none.";
        if (first(p)->signature->mark == Mark::death_without_cause)
            c.reason = "The only death recorded is " + p->name() + "'s (" + first(p)->signature->entry->title +
                       "), and the record does not say why: a worker its watchdog aborted after waiting is recorded the "
                       "same way.";
        out.candidate = c;
    }

    // The process whose error precedes every other's, when the logs order them all.
    const Process* earliest() {
        std::sort(pool_.begin(), pool_.end(), [&](const Process* a, const Process* b) {
            return precedes(*first(a), *first(b)).value_or(first(a)->order < first(b)->order);
        });
        for (const Process* p : pool_) {
            const bool before_all = std::all_of(pool_.begin(), pool_.end(), [&](const Process* q) {
                return q == p || precedes(*first(p), *first(q)).value_or(false);
            });
            if (before_all) return p;
        }
        return nullptr;
    }

    Candidate ordered(const Process* p, Strength strength, const std::string& why) const {
        return Candidate{p, std::nullopt, Strategy::initiating_event, strength, {first(p)}, p->name() + why};
    }

    // Several processes failed on their own. Errors of one kind are one common cause only when they agree: the same
    // message at the same moment. One rank clearly earlier by a margin no simultaneous misconfiguration would leave,
    // or dated errors of one kind with different messages, are ordered like any two errors.
    void several(InitiatingResult& out) {
        const Process* e = earliest();
        std::set<const Entry*> kinds;
        for (const Process* p : pool_) kinds.insert(first(p)->signature->entry);
        if (kinds.size() > 1) {
            if (e)
                out.candidate = ordered(e, use_specific_ ? Strength::strong : Strength::medium,
                                        "'s error (" + first(e)->signature->entry->title +
                                            ") comes before every other process's own error.");
            else
                out.unordered = pool_;
            return;
        }
        if (e) {
            bool well_before = true, differs = false, dated = true;
            for (const Process* q : pool_) {
                if (q == e) continue;
                auto gap = seconds_between(*first(e), *first(q));
                if (!gap || *gap < kSimultaneousSeconds) well_before = false;
                if (!gap || *gap <= 0) dated = false;   // order by position alone says too little here
                differs = differs || message_shape(first(q)->evidence.text) != message_shape(first(e)->evidence.text);
            }
            const std::string title = first(e)->signature->entry->title;
            if (well_before) {
                out.candidate = ordered(e, Strength::strong, " hit " + title + " well before the other ranks did.");
                return;
            }
            if (differs && dated) {
                out.candidate = ordered(e, Strength::medium,
                                        " hit " + title + " before the other ranks, whose errors of the same kind say "
                                        "something else: they are not one common cause at one moment.");
                return;
            }
        }
        out.systemic = pool_;
    }

    const ProcessTable& table_;
    const std::set<const Event*>& ignored_;
    bool use_specific_ = false;
    std::vector<const Process*> pool_;
};

}  // namespace

InitiatingResult initiating_event_strategy(const ProcessTable& table, const std::set<const Event*>& ignored) {
    return InitiatingPool(table, ignored).decide();
}

StallRole stall_role(const Process* p) {
    if (!p) return StallRole::silent;
    bool waited = false, stuck = false, ended = false;
    for (const Event* e : p->direct_collateral) {
        if (e->signature->mark == Mark::own_watchdog_stuck) stuck = true;
        else if (e->signature->entry->ends_from_outside != Entry::OutsideEnd::no) ended = true;   // the teardown's doing
        else waited = true;
    }
    if (waited) return StallRole::waiter;
    if (stuck) return StallRole::stuck_itself;
    // Only ended from outside (the agent's kill at teardown): counted with the waiters, as any collateral was before
    // a stuck watchdog was told apart.
    if (ended) return StallRole::waiter;
    if (p->direct_specific_initiating().empty() && p->generic_initiating.empty()) return StallRole::silent;
    return StallRole::failed_itself;
}

// The stream a silent rank's own lines are in ends among the others' waits: its last line is a waiting rank's report
// of its wait, and no launcher record of an exit comes after the waits. A log cut there (a window, a paste, a job
// still being read) may have cut the silent rank's own wait too, so its silence is not shown to cover the failure.
bool stream_ends_among_waits(const Process& silent, const ProcessTable& table, const Timeline& t) {
    const std::string& file = silent.summary.last_line.file;
    if (file.empty()) return false;
    const Process* last = nullptr;
    for (const Process& q : table.processes())
        if (q.summary.last_line.file == file && (!last || q.summary.last_line.line > last->summary.last_line.line)) last = &q;
    if (!last || last == &silent || stall_role(last) != StallRole::waiter) return false;
    std::uint64_t first_wait = UINT64_MAX;
    for (const Event* e : last->direct_collateral)
        if (e->evidence.file == file) first_wait = std::min(first_wait, e->evidence.line);
    if (first_wait > last->summary.last_line.line) return false;
    return std::none_of(t.exits.begin(), t.exits.end(), [&](const ExitRecord& x) {
        return x.evidence.file == file && x.evidence.line > first_wait;
    });
}

// Every rank of the world but one reports waiting on a peer; that one is silent, or only its own watchdog got
// stuck. A silent rank with no lines at all is accepted by elimination only when the world size is stated by the
// logs, or when lines nobody claims (unprefixed output, a SIGTERM'd pid no rank owns) show that one more worker was
// there. Two ranks that do not wait (one silent, one stuck) leave the elimination undecided.
std::optional<Candidate> silent_rank_strategy(const ProcessTable& table, const Timeline& t, std::optional<int> world) {
    if (!world || *world < 2 || t.deduplicated) return std::nullopt;
    std::vector<int> not_waiting;
    int waiters = 0;
    for (int r = 0; r < *world; ++r) {
        switch (stall_role(table.by_rank(r))) {
            case StallRole::waiter: ++waiters; break;
            case StallRole::stuck_itself:
            case StallRole::silent: not_waiting.push_back(r); break;
            case StallRole::failed_itself: return std::nullopt;
        }
    }
    if (not_waiting.size() != 1 || waiters != *world - 1) return std::nullopt;
    const int rank = not_waiting.front();
    if (recorded_ending_like_a_waiter(rank, table, t)) return std::nullopt;
    const Process* p = table.by_rank(rank);
    Candidate c;
    c.process = p && p->own_lines > 0 ? p : nullptr;
    c.rank = rank;
    c.strategy = Strategy::silent_rank;
    c.strength = Strength::medium;
    if (c.process && stall_role(p) == StallRole::stuck_itself) {
        c.reason = "Every other rank reports waiting on a peer, while rank " + std::to_string(rank) +
                   " reports only that its own watchdog got stuck: it was blocked itself, in a CUDA or NCCL call (\"" +
                   excerpt(p->direct_collateral.front()->evidence.text, 160) + "\").";
        return c;
    }
    if (c.process) {
        c.reason = "Every other rank reports a collateral error, while rank " + std::to_string(rank) +
                   " reports none: it stopped taking part (its last line: \"" + excerpt(p->summary.last_line.text, 160) + "\").";
        if (stream_ends_among_waits(*p, table, t)) {
            c.strength = Strength::weak;
            c.stream_may_be_cut = true;
            c.reason += " But the log ends among the others' reports of their waits, with no launcher record after "
                        "them: if it was cut there, rank " + std::to_string(rank) + "'s own report may have been cut too.";
        }
        return c;
    }
    // In per-rank files, a rank with no lines is a file that is not here, not a silent worker.
    if (!table.has_shared_stream()) return std::nullopt;
    bool stated = t.world_size && *t.world_size == *world;
    bool unclaimed = table.has_unclaimed_worker_output();
    if (!stated && !unclaimed) return std::nullopt;
    c.reason = "Every other rank of " + (stated ? "the " + std::to_string(*world) + "-rank world the logs state"
                                                : std::string("ranks 0-") + std::to_string(*world - 1) +
                                                      " (the highest rank named is " + std::to_string(*world - 1) + ")") +
               " reports a collateral error; rank " + std::to_string(rank) +
               " writes nothing under its own number" +
               (unclaimed ? ", and the only output nobody else claims is consistent with it still running" : "") + ".";
    if (!stated) c.strength = Strength::weak;
    return c;
}

namespace {

// One rank's progress in one process group, from its own watchdog lines: the earliest work it timed out on, and
// the last work it completed ("last completed NCCL work: N", or the work before the one it timed out on: the
// watchdog checks works in the order they were enqueued, so an earlier work still pending would have timed out first).
struct GroupProgress {
    std::optional<long long> timed_out;
    const Event* timed_out_event = nullptr;
    long long completed = -1;
    const Event* completed_event = nullptr;
};

std::map<std::string, GroupProgress> progress_by_group(const Process& p) {
    std::map<std::string, GroupProgress> out;
    for (const Event* e : p.direct_collateral) {
        GroupProgress& g = out[e->process_group];
        if (auto seq = e->number("seq"); seq && (!g.timed_out || *seq < *g.timed_out)) {
            g.timed_out = seq;
            g.timed_out_event = e;
        }
        long long done = e->number("last_completed").value_or(-1);
        if (auto seq = e->number("seq")) done = std::max(done, *seq - 1);
        const bool states_it = e->captures.count("last_completed") > 0;   // prefer the line that says it
        if (done > g.completed || (done == g.completed && states_it && !g.completed_event->captures.count("last_completed"))) {
            g.completed = done;
            g.completed_event = e;
        }
    }
    return out;
}

}  // namespace

std::optional<DivergedSequences> find_diverged_sequences(const ProcessTable& table) {
    std::vector<std::pair<const Process*, std::map<std::string, GroupProgress>>> ranks;
    for (const Process& p : table.processes())
        if (p.rank) ranks.emplace_back(&p, progress_by_group(p));
    for (const auto& [waiting, its] : ranks)
        for (const auto& [group, mine] : its) {
            if (!mine.timed_out) continue;
            for (const auto& [other, theirs] : ranks) {
                if (other == waiting) continue;
                auto g = theirs.find(group);
                if (g == theirs.end() || g->second.completed < *mine.timed_out) continue;
                if (mine.timed_out_event->attempt != g->second.completed_event->attempt) continue;
                return DivergedSequences{waiting, mine.timed_out_event, other, g->second.completed_event,
                                         *mine.timed_out, g->second.completed};
            }
        }
    return std::nullopt;
}

// NCCL sequence numbers count per process group: a rank's work in one group says nothing of another group's, so
// the work the others timed out on and what each rank enqueued are compared within one group only. (Where a rank
// waits in a work another completed, find_diverged_sequences, the job model does not ask: being behind then says
// nothing of who diverged.)
std::optional<Candidate> sequence_lag_strategy(const ProcessTable& table) {
    std::map<std::string, long long> timed_out_at;   // per process group
    for (const Process& p : table.processes())
        for (const Event* e : p.direct_collateral)
            if (auto s = e->number("seq")) {
                auto [it, fresh] = timed_out_at.try_emplace(e->process_group, *s);
                if (!fresh) it->second = std::max(it->second, *s);
            }
    if (timed_out_at.empty()) return std::nullopt;
    const Process* lagging = nullptr;
    const Event* shown = nullptr;
    std::string group;
    for (const Process& p : table.processes()) {
        if (!p.rank) continue;
        std::map<std::string, std::pair<long long, const Event*>> issued;   // per group: highest work seen
        for (const Event* e : p.events) {
            if (!timed_out_at.count(e->process_group)) continue;
            long long v = std::max(e->number("last_enqueued").value_or(-1), e->number("seq").value_or(-1));
            auto& [best, at] = issued.try_emplace(e->process_group, -1, nullptr).first->second;
            if (v > best) best = v, at = e;
        }
        for (const auto& [pg, seen] : issued) {
            if (seen.first < 0 || seen.first >= timed_out_at[pg]) continue;
            if (lagging && lagging != &p) return std::nullopt;   // two ranks behind: no one laggard
            lagging = &p;
            shown = seen.second;
            group = pg;
        }
    }
    if (!lagging) return std::nullopt;
    Candidate c;
    c.process = lagging;
    c.strategy = Strategy::sequence_lag;
    c.strength = Strength::medium;
    c.evidence = {shown};
    c.reason = "The others timed out on NCCL work " + std::to_string(timed_out_at[group]) +
               (group.empty() ? std::string() : " of " + group) + ", which " + lagging->name() + " never enqueued.";
    return c;
}

namespace {

constexpr int kIdlePercent = 5;    // a GPU no kernel runs on
constexpr int kBusyPercent = 90;   // a GPU spinning in NCCL's kernels while its rank waits

}  // namespace

std::optional<Candidate> idle_gpu_strategy(const ProcessTable& table, const Timeline& t, std::optional<int> world) {
    if (t.gpu_snapshots.size() != 1) return std::nullopt;
    const GpuSnapshot& s = t.gpu_snapshots.front();
    const bool one_node = t.nodes_expected() == 1 || (world && !t.nodes_expected() && t.topology.host_ranks.size() <= 1);
    if (s.gpus.size() < 2 || !one_node || (world && *world != static_cast<int>(s.gpus.size()))) return std::nullopt;
    const GpuReading* idle = nullptr;
    for (const GpuReading& g : s.gpus) {
        if (g.utilization >= kBusyPercent) continue;
        if (g.utilization > kIdlePercent || idle) return std::nullopt;
        idle = &g;
    }
    if (!idle) return std::nullopt;
    Candidate c;
    c.rank = idle->index;
    c.process = table.by_rank(idle->index);
    c.strategy = Strategy::idle_gpu;
    c.strength = Strength::weak;
    c.reason = "nvidia-smi (" + t.sources[s.source] + ":" + std::to_string(s.line) + ") shows GPU " +
               std::to_string(idle->index) + " (" + idle->bus + ") at " + std::to_string(idle->utilization) +
               "% while the other " + std::to_string(s.gpus.size() - 1) + " GPUs are at " +
               std::to_string(kBusyPercent) + "% or more: ranks waiting in a collective spin in NCCL's kernels, so "
               "the idle GPU's rank is the one not in it. Its rank is read as local rank N on GPU N of this one node.";
    return c;
}

std::optional<Candidate> desync_strategy(const ProcessTable& table) {
    std::map<int, int> named;
    std::vector<const Event*> evidence;
    for (const Process& p : table.processes())
        for (const Event* e : p.events)
            for (int r : capture_ints(*e, "lagging_ranks")) {
                ++named[r];
                if (evidence.size() < 2) evidence.push_back(e);
            }
    if (named.size() != 1) return std::nullopt;
    const int rank = named.begin()->first;
    Candidate c;
    c.process = table.by_rank(rank);
    c.rank = rank;
    c.strategy = Strategy::desync_report;
    c.strength = Strength::medium;
    c.evidence = evidence;
    c.reason = "The desync debug report names rank " + std::to_string(rank) + " as the lagging rank.";
    return c;
}

// torchrun's agent names the first of its workers to fail ("failed (exitcode: 1) local_rank: 2 (pid: ...)")
// and SIGTERMs the rest. That worker is its node's first exit. A worker that shows a collateral error of its
// own is a survivor that timed out (on a node the failure reached late), not a cause; of the workers the agents
// name, the one without such an error is the candidate, and only when it is the only one: agents on different
// nodes cannot be ordered by these lines alone.
// An error of communication (a collective or the network): on several workers it mirrors one peer's failure.
bool communication_error(const Event& e) {
    const std::string& category = e.signature->entry->category;
    return category == "Collective" || category == "Network";
}

std::size_t alike_reports(const Process& p) {
    if (p.rank || p.local_rank) return 0;
    // Each report: a failure start, and the first error of its own kind after it, before the next report starts.
    std::map<std::pair<const Entry*, std::string>, std::size_t> alike;
    std::size_t most = 0;
    bool open = false;
    for (const Event* e : p.events) {
        if (e->signature->mark == Mark::failure_start) {
            open = true;
            continue;
        }
        if (!open || e->role != Role::initiating || e->from_launcher) continue;
        open = false;
        // Errors of communication on several workers mirror one peer's failure more often than they share a cause.
        if (communication_error(*e)) continue;
        most = std::max(most, ++alike[{e->signature->entry, message_shape(e->evidence.text)}]);
    }
    return most > 1 ? most : 0;
}

std::size_t interleaved_reports(const Process& p) {
    if (p.rank || p.local_rank || !p.collateral.empty()) return 0;
    const Event* failure = p.first_initiating();
    if (!failure || failure->from_launcher) return 0;
    if (communication_error(*failure)) return 0;
    std::map<std::string, std::size_t> shredded;   // file:line:func -> lines showing it glued to another writer's text
    for (const Event* e : p.events) {
        if (e->signature->mark != Mark::interleaved_frame) continue;
        auto field = [&](const char* name) {
            auto it = e->captures.find(name);
            return it == e->captures.end() ? std::string() : it->second;
        };
        if (++shredded[field("file") + ":" + field("line") + ":" + field("func")] >= 2) return 2;
    }
    return 0;
}

namespace {

// The named worker's exit is no different from its siblings': the same signal as any of them (all SIGABRT in one
// second, the watchdog's abort on every rank), or the same exit code as every sibling not stopped by the agent, with
// no worker of the node losing a peer (an import error or a bad argument on every rank, each failing on its own).
// Then it was merely the first one the agent reaped.
bool ended_like_siblings(const ExitRecord& record, const Process* named, const ProcessTable& table, const Timeline& t) {
    if (!record.exitcode) return false;
    bool others = false, all_same = true;
    for (const ExitRecord& x : t.exits) {
        const Process* p = table.resolve_exit(x);
        if (x.group != record.group || !p || p == named || !x.exitcode || *x.exitcode == kExitSigterm) continue;
        if (x.attempt && record.attempt && *x.attempt != *record.attempt) continue;
        if (*record.exitcode < 0 && *record.exitcode != kExitSigterm && x.exitcode == record.exitcode) return true;
        others = true;
        all_same = all_same && x.exitcode == record.exitcode;
    }
    if (!others || !all_same) return false;
    return std::none_of(table.processes().begin(), table.processes().end(),
                        [&](const Process& q) { return q.group == record.group && q.hurt_by_peers(); });
}

// The node's output that names no worker, read against the named worker's first exit. It only lost a peer or waited
// (one worker per node, no prefixes): the named worker may be the one that suffered. It waited on a collective: the
// worker it waited for stalled and never exited, so the first to exit was a waiter whose timeout fired. It shows the
// same error more than once: several workers failed alike, and the first reaped says nothing of who was first.
// Only lines of the record's own launch attempt count (a restarted job's next attempt waits for other reasons).
bool node_output_contradicts(const Process& named, const ExitRecord& record, const ProcessTable& table) {
    auto same_attempt = [&](const Event* e) { return !e->attempt || !record.attempt || *e->attempt == *record.attempt; };
    for (const Process& q : table.processes()) {
        if (q.group != named.group || q.rank || q.local_rank || q.pid) continue;
        const bool lost_peer_only = !q.first_initiating() && q.hurt_by_peers();
        const bool waited = std::any_of(q.direct_collateral.begin(), q.direct_collateral.end(),
                                        [&](const Event* e) { return e->shows_wait() && same_attempt(e); });
        if (lost_peer_only || waited || alike_reports(q) > 0) return true;
    }
    return false;
}

// Another worker of the same launch ended with a failure just as unexplained: no error of its own, no lost peer or
// wait in its output. The agent reaps the workers it finds failed in one poll in an order of its own, so which of
// the two it named first orders nothing. Lost-peer errors the node printed without a rank (no prefixes) explain as
// many exits as there are of them.
bool rival_unexplained_exit(const ExitRecord& record, const Process& named, const ProcessTable& table,
                            const Timeline& t) {
    auto same_attempt = [&](const std::optional<std::uint16_t>& a) { return !a || !record.attempt || *a == *record.attempt; };
    std::set<const Process*> rivals;
    for (const ExitRecord& x : t.exits) {
        const Process* p = table.resolve_exit(x);
        if (x.group != record.group || !p || p == &named || !x.exitcode || *x.exitcode == 0 || *x.exitcode == kExitSigterm)
            continue;
        if (same_attempt(x.attempt) && !p->hurt_by_peers() && !p->first_initiating()) rivals.insert(p);
    }
    std::size_t unranked_losses = 0;
    for (const Process& q : table.processes()) {
        if (q.group != record.group || q.rank || q.local_rank || q.pid) continue;
        for (const Event* e : q.direct_collateral)
            if (e->signature->entry->category != "Launcher" && same_attempt(e->attempt)) ++unranked_losses;
    }
    return rivals.size() > unranked_losses;
}

// The launcher's summary of another node records a worker's failure before the named worker's: the named one was
// first on its own node only. (Summary records carry the agent's dated time, so nodes compare.)
bool earlier_failure_elsewhere(const Process& named, const ProcessTable& table) {
    for (const Event* mine : named.events) {
        if (!mine->in_summary) continue;
        for (const Process& q : table.processes()) {
            if (&q == &named || q.group == named.group) continue;
            for (const Event* theirs : q.events)
                if (theirs->in_summary && theirs->signature->entry->category == "Launcher" &&
                    precedes(*theirs, *mine).value_or(false))
                    return true;
        }
    }
    return false;
}

}  // namespace

std::optional<Candidate> agent_first_exit_strategy(const ProcessTable& table, const Timeline& t) {
    const Process* named = nullptr;
    const ExitRecord* record = nullptr;
    for (const ExitRecord& x : t.exits) {
        if (x.root_cause_section || x.rank) continue;   // the agent's own line carries a local rank only
        const Process* p = table.resolve_exit(x);
        if (!p || !p->direct_collateral.empty()) continue;
        if (named && named != p) return std::nullopt;
        named = p;
        record = &x;
    }
    if (!named || !named->rank) return std::nullopt;
    if (ended_like_siblings(*record, named, table, t) || node_output_contradicts(*named, *record, table) ||
        aborted_like_a_waiter(*record, table) ||
        rival_unexplained_exit(*record, *named, table, t) || earlier_failure_elsewhere(*named, table))
        return std::nullopt;
    Candidate c;
    c.process = named;
    c.strategy = Strategy::agent_first_exit;
    c.strength = Strength::weak;
    c.reason = "torchrun's agent reported " + named->name() + " as the first of its workers to exit (" +
               record->evidence.file + ":" + std::to_string(record->evidence.line) +
               ") and sent the others SIGTERM; nothing in its own output blames another rank.";
    return c;
}

namespace {

std::string without_sequence_numbers(std::string key) {
    for (std::size_t at; (at = key.find("SequenceNumber=")) != std::string::npos;) {
        std::size_t end = key.find_first_not_of("0123456789", at + 15);
        key.erase(at, (end == std::string::npos ? key.size() : end) - at);
    }
    return key;
}

using ByFingerprint = std::map<std::string, std::vector<const Process*>>;

// The one rank holding a fingerprint no other rank holds, when two or more others all hold one and the same.
const Process* lone_holder(const ByFingerprint& by, std::size_t& agreeing) {
    if (by.size() != 2) return nullptr;
    const auto& a = by.begin()->second;
    const auto& b = std::next(by.begin())->second;
    const auto& lone = a.size() < b.size() ? a : b;
    const auto& rest = a.size() < b.size() ? b : a;
    if (lone.size() != 1 || rest.size() < 2) return nullptr;
    agreeing = rest.size();
    return lone.front();
}

}  // namespace

// Every rank states the collective it runs and the one a peer runs instead. The fingerprint held by one rank only,
// when all the others hold one and the same, is the rank that diverged. Fingerprints are compared first without their
// sequence numbers (other operations: ranks of other process groups count collectives apart, so numbers alone may
// differ for reasons of their own), then, where every rank runs the same operation, with them: all ranks but one at
// one number and that one elsewhere ran collectives the others did not, or skipped some.
std::optional<Candidate> mismatch_minority_strategy(const ProcessTable& table) {
    ByFingerprint by_operation, by_position;
    std::map<const Process*, const Event*> stated;
    for (const Process& p : table.processes()) {
        if (!p.rank) continue;
        for (const Event* e : p.events) {
            auto fp = e->captures.find("fingerprint");
            if (fp == e->captures.end() || fp->second.empty() || stated.count(&p)) continue;
            by_operation[without_sequence_numbers(fp->second)].push_back(&p);
            by_position[fp->second].push_back(&p);
            stated[&p] = e;
        }
    }
    std::size_t agreeing = 0;
    const Process* p = lone_holder(by_operation, agreeing);
    const bool by_sequence = !p && by_operation.size() == 1;
    if (by_sequence) p = lone_holder(by_position, agreeing);
    if (!p) return std::nullopt;
    const Event* other = nullptr;
    for (const auto& [process, event] : stated)   // processes in table order: the first rank that agrees
        if (process != p && !other) other = event;
    Candidate c;
    c.process = p;
    c.strategy = Strategy::mismatch_minority;
    c.strength = Strength::strong;
    c.evidence = {stated[p], other};
    c.reason = p->name() + (by_sequence ? " runs the same operation at another point of the sequence from the "
                                        : " runs a different collective from the ") +
               std::to_string(agreeing) + " other ranks that report theirs, which all " +
               (by_sequence ? "stand at one sequence number: it ran collectives they did not, or skipped some"
                            : "run the same one: it diverged") +
               " (\"" + excerpt(stated[p]->evidence.text, 140) + "\").";
    return c;
}

namespace {

struct MismatchReport {
    const Process* reporter;
    const Event* event;
    int rank, other;
};

std::vector<MismatchReport> mismatch_reports(const ProcessTable& table) {
    std::vector<MismatchReport> out;
    for (const Process& p : table.processes()) {
        if (!p.rank) continue;
        for (const Event* e : p.events) {
            const auto rank = e->number("rank"), other = e->number("other_rank");
            if (!other || *other >= kMaxWorld || (rank && *rank != *p.rank)) continue;
            out.push_back({&p, e, *p.rank, static_cast<int>(*other)});
            break;   // a rank's first report: the check raises once
        }
    }
    return out;
}

// What the check prints on rank r when `q` alone diverged: the others name q, q names the lowest rank other than q.
int named_if_alone(int r, int q) { return r != q ? q : q == 0 ? 1 : 0; }

}  // namespace

MismatchReading mismatch_named_strategy(const ProcessTable& table, std::optional<int> world) {
    MismatchReading out;
    const std::vector<MismatchReport> reports = mismatch_reports(table);
    if (reports.empty()) return out;
    // A report of rank r naming q says ranks 0..q-1 (and r) ran the same: informative when that is two ranks or more.
    // Every informative report must single out the same q.
    std::optional<int> q;
    bool several_singled_out = false;
    std::set<int> above;   // reporters above q that agree with the ranks below it
    for (const MismatchReport& m : reports) {
        if (m.other + (m.rank > m.other ? 1 : 0) < 2) continue;   // it names the first rank it compared
        if (q && *q != m.other) several_singled_out = true;
        q = m.other;
        if (m.rank > m.other) above.insert(m.rank);
    }
    const bool consistent = q && !several_singled_out && std::all_of(reports.begin(), reports.end(), [&](const MismatchReport& m) {
        return m.other == named_if_alone(m.rank, *q);
    });
    if (!consistent) {
        // Every rank reported and no one rank is singled out (none, or different ones by different reports): the
        // ranks split into camps that each ran their own collective.
        std::set<int> reporters;
        for (const MismatchReport& m : reports) reporters.insert(m.rank);
        out.even_split = world && static_cast<int>(reporters.size()) == *world && *reporters.rbegin() < *world;
        return out;
    }
    const bool covered = world && *q + static_cast<int>(above.size()) + 1 == *world;
    Candidate c;
    c.process = table.by_rank(*q);
    c.rank = *q;
    c.strategy = Strategy::mismatch_named;
    c.strength = covered ? Strength::strong : Strength::weak;
    const MismatchReport& shown = *std::find_if(reports.begin(), reports.end(), [&](const MismatchReport& m) { return m.rank != *q; });
    std::vector<int> naming;
    for (const MismatchReport& m : reports)
        if (m.rank != *q) naming.push_back(m.rank);
    std::sort(naming.begin(), naming.end());
    c.evidence = {shown.event};
    const std::string qs = std::to_string(*q);
    c.reason = "The collective check of " + ranks_phrase(naming) + " names rank " + qs +
               " as the first rank whose collective differs; the check compares in rank order, so every rank below " +
               qs + (above.empty() ? std::string() : " and " + ranks_phrase(std::vector<int>(above.begin(), above.end()))) +
               " ran the same collective, and rank " + qs + " diverged (\"" + excerpt(shown.event->evidence.text, 140) +
               "\")." + (covered ? "" : " Ranks above it are not shown to agree, so this is read from the order alone.");
    out.divergent = std::move(c);
    return out;
}

namespace {

// Ops whose every rank passes tensors of the same size: a size that differs at one sequence number is a different
// tensor. (All-to-all, gather and scatter sizes legitimately differ by rank.)
bool sizes_must_agree(std::string_view op) {
    static constexpr std::string_view kSameSize[] = {"ALLREDUCE", "ALLGATHER", "_ALLGATHER_BASE", "ALLGATHER_COALESCED",
                                                     "REDUCE_SCATTER", "_REDUCE_SCATTER_BASE", "BROADCAST", "COALESCED"};
    return std::find(std::begin(kSameSize), std::end(kSameSize), op) != std::end(kSameSize);
}

// What a wait says the rank was running: the op, with the sizes where they must agree.
std::optional<std::string> waited_work(const Event& e) {
    auto op = e.captures.find("op");
    if (op == e.captures.end() || op->second.empty()) return std::nullopt;
    std::string work = op->second;
    if (auto shape = e.captures.find("shape"); shape != e.captures.end() && sizes_must_agree(op->second))
        work += shape->second;
    return work;
}

}  // namespace

std::optional<Candidate> work_minority_strategy(const ProcessTable& table) {
    using At = std::pair<std::string, long long>;   // (process group, sequence number)
    std::map<At, std::map<std::string, std::vector<const Process*>>> by_work;
    std::map<std::pair<At, const Process*>, const Event*> stated;
    for (const Process& p : table.processes()) {
        if (!p.rank) continue;
        for (const Event* e : p.events) {
            auto seq = e->number("seq");
            auto work = e->shows_wait() && seq ? waited_work(*e) : std::nullopt;
            if (!work || !stated.try_emplace({{e->process_group, *seq}, &p}, e).second) continue;
            by_work[{e->process_group, *seq}][*work].push_back(&p);
        }
    }
    for (const auto& [at, variants] : by_work) {
        if (variants.size() != 2) continue;
        const auto& a = variants.begin()->second;
        const auto& b = std::next(variants.begin())->second;
        const auto& lone = a.size() < b.size() ? a : b;
        const auto& rest = a.size() < b.size() ? b : a;
        if (lone.size() != 1 || rest.size() < 2) continue;
        const Process* p = lone.front();
        Candidate c;
        c.process = p;
        c.strategy = Strategy::work_minority;
        c.strength = Strength::strong;
        c.evidence = {stated.at({at, p}), stated.at({at, rest.front()})};
        c.reason = p->name() + " waited on different work at sequence number " + std::to_string(at.second) +
                   " from the " + std::to_string(rest.size()) + " other ranks that report it, which all agree (\"" +
                   excerpt(stated.at({at, p})->evidence.text, 140) + "\"): it took another path and diverged.";
        return c;
    }
    return std::nullopt;
}

// A launcher's record that a worker ended on a signal, where the worker's own output is here and shows no wait and no
// lost peer while the others do: the others lost it. SIGTERM is the agent's own teardown, not such an end.
std::optional<Candidate> own_end_strategy(const ProcessTable& table, const Timeline& t) {
    const Process* ended = nullptr;
    const ExitRecord* record = nullptr;
    bool others_hurt = false;
    for (const Process& p : table.processes())
        if (p.rank && !p.direct_collateral.empty()) others_hurt = true;
    if (!others_hurt) return std::nullopt;
    for (const ExitRecord& x : t.exits) {
        // A signal (a negative exit code), not an error exit: a rank that lost its peer exits with 1 too, and its
        // traceback may simply be outside these logs.
        if (!x.exitcode || *x.exitcode >= 0 || *x.exitcode == kExitSigterm) continue;
        // SIGABRT while a rank waited in a collective is how a waiter ends too: not an end of its own.
        if (aborted_like_a_waiter(x, table)) continue;
        const Process* p = table.resolve_exit(x);
        // Its own output must be here to show that it neither waited nor lost a peer.
        if (!p || !p->rank || p->own_lines == 0 || !p->direct_collateral.empty() || p->sigterm_by_agent ||
            p->first_initiating())
            continue;
        if (ended && ended != p) return std::nullopt;
        ended = p;
        record = &x;
    }
    if (!ended) return std::nullopt;
    // Another worker ended on the same signal (the watchdog's SIGABRT on every rank): this end is not its own.
    for (const ExitRecord& x : t.exits) {
        const Process* p = table.resolve_exit(x);
        if (p && p != ended && x.exitcode == record->exitcode &&
            (!x.attempt || !record->attempt || *x.attempt == *record->attempt))
            return std::nullopt;
    }
    Candidate c;
    c.process = ended;
    c.strategy = Strategy::own_end;
    c.strength = Strength::medium;
    for (const Event* e : ended->collateral)
        if (e->from_launcher && c.evidence.size() < 2) c.evidence.push_back(e);
    c.reason = "The launcher reports that " + ended->name() + " ended with exit code " + std::to_string(*record->exitcode) +
               " (" + record->evidence.file + ":" + std::to_string(record->evidence.line) +
               ") while it shows no wait and no lost peer of its own; the other ranks' errors are what losing it looks like.";
    return c;
}

}  // namespace denpex

namespace denpex {
namespace {

// InfiniBand work completion statuses (ibv_wc_status) that the link itself failed: the sender's retries ran out.
// Any other status, 5 (IBV_WC_WR_FLUSH_ERR) above all, is a work request failed because its queue pair was already
// in error: a consequence.
constexpr long long kWcRetryExceeded = 12, kWcRnrRetryExceeded = 13;

const Event* link_fault(const Process& p) {
    for (const Event* e : p.direct_collateral)
        if (auto status = e->number("wc_status"); status && (*status == kWcRetryExceeded || *status == kWcRnrRetryExceeded))
            return e;
    return nullptr;
}

}  // namespace

std::optional<Candidate> first_transport_fault_strategy(const ProcessTable& table, std::optional<int> world) {
    if (!world || *world < 2) return std::nullopt;
    const Process* faulted = nullptr;
    const Event* fault = nullptr;
    for (int r = 0; r < *world; ++r) {
        const Process* p = table.by_rank(r);
        if (!p || p->own_lines == 0) return std::nullopt;   // every rank here, or a silent death is not ruled out
        if (!p->direct_specific_initiating().empty() || !p->generic_initiating.empty()) return std::nullopt;
        if (const Event* e = link_fault(*p)) {
            if (faulted) return std::nullopt;   // the link failed as seen from two ranks: no first
            faulted = p;
            fault = e;
            continue;
        }
        if (stall_role(p) != StallRole::waiter && !p->sigterm_by_agent) return std::nullopt;   // no sign of life after
    }
    if (!faulted) return std::nullopt;
    return Candidate{faulted, std::nullopt, Strategy::first_transport_fault, Strength::medium, {fault},
                     faulted->name() + " saw the InfiniBand link fail itself (completion status " +
                         fault->captures.at("wc_status") + ": the transport's retries ran out), while every other rank "
                         "shows it was still alive after that (a wait, a flushed work request, a lost peer, or its agent "
                         "stopping it): the link failed first at " + faulted->name() + "'s end. The fault may lie in the "
                         "fabric between the two hosts, not in the rank."};
}

}  // namespace denpex
