// Strategies: independent ways of naming the initiating rank, each returning a candidate with its evidence.
//
//   initiating-event  the process with an initiating-class error (OOM, Xid, ECC, segfault, SIGKILL, a Python
//                     exception) — the earliest when several, comparing times only where comparable; the same
//                     error on several ranks at once (or a failure the knowledge marks as the whole job's) is
//                     not one rank's failure;
//   silent-rank       every rank reports collateral errors but one, which is silent (present, or absent from a
//                     shared console where it should have written);
//   sequence-lag      the rank whose last enqueued NCCL work is below the SeqNum the others timed out on;
//   desync-report     the lagging rank named by TORCH_NCCL_DESYNC_DEBUG;
//   agent-first-exit  the worker torchrun's agent saw fail first and did not SIGTERM, when it shows no
//                     collateral error of its own (weak: supporting evidence, or the only clue there is);
//   mismatch-minority the one rank whose own collective differs from what every other rank runs at the same
//                     point (TORCH_DISTRIBUTED_DEBUG=DETAIL's "Rank 1 is running collective: ..., but Rank 0 ...");
//   own-end           the one worker a launcher reports ended on a signal whose own output shows no wait and no
//                     lost peer, while the others do: it ended, they lost it.
// Strengths: strong, medium, weak (engine/decision.hpp). The job model weighs them; no strategy names an entry id.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/decision.hpp"
#include "engine/process_table.hpp"
#include "engine/timeline.hpp"

namespace denpex {

struct Candidate {
    const Process* process = nullptr;  // null when the rank is named but wrote nothing here
    std::optional<int> rank;           // set when process is null
    Strategy strategy = Strategy::initiating_event;
    Strength strength = Strength::medium;
    std::vector<const Event*> evidence;
    std::string reason;
    // silent_rank: the stream its silence is read from ends among the others' waits, so a cut may hide its own wait
    // (its silence is an inference, not a stream shown to cover the failure).
    bool stream_may_be_cut = false;
};

struct InitiatingResult {
    std::optional<Candidate> candidate;
    std::vector<const Process*> systemic;     // the same error on several ranks at once, or a job-wide failure
    std::vector<const Process*> unordered;    // several failures whose order the logs cannot tell
    std::vector<const Process*> unranked;     // the failing process has no rank
    // Processes whose error is a check comparing values across ranks (Mark::compares_ranks): they noticed that a
    // rank diverged; which one did is in the values compared, not in who raised the error.
    std::vector<const Process*> disagreeing;
    // `systemic` rests on an inference (reports shredded into each other), not on the error read twice.
    bool systemic_inferred = false;
};

// `ignored`: events that cannot be initiators here (consequences of a stall already under way).
// In a stream that names no worker: how many separate failure reports (tracebacks) end in one and the same error,
// when more than one does. Several workers failing alike at once (an import error on every rank of a node, printed
// without prefixes); 0 when the stream holds at most one such report.
std::size_t alike_reports(const Process& p);
// An error of communication (the knowledge's Collective and Network categories): on several workers these mirror one
// peer's failure, or one broken transport, more often than they share a cause of their own.
bool communication_error(const Event& e);
// In a stream that names no worker and shows one failure and no collateral: 2 when the same traceback frame is
// shredded into another writer's text twice (Mark::interleaved_frame), i.e. at least two processes printed a
// traceback through the same code at the same moment, though only one report's last line may be here (an excerpt);
// 0 otherwise. Communication errors are left out, as in alike_reports.
std::size_t interleaved_reports(const Process& p);

InitiatingResult initiating_event_strategy(const ProcessTable& table, const std::set<const Event*>& ignored = {});
// What a rank's own lines say about its part in a stall: it waited on a peer (a collective timeout, a closed
// connection), its own watchdog got stuck (blocked itself: it may be the one the others waited for), it said
// nothing, or it failed on its own. A rank with no process here is silent.
enum class StallRole { waiter, stuck_itself, silent, failed_itself };
StallRole stall_role(const Process* p);

// Every rank of the world is here with no error of its own; exactly one saw an InfiniBand work request fail on the link
// itself (completion status 12, transport retries exceeded, or 13, RNR retries exceeded), and every other rank shows
// it was alive after that: a wait, a flushed work request (status 5: its queue pair already in error), a lost peer, or
// its agent stopping it at teardown. That rank is where the link failed first (the fault may lie in the fabric). A
// rank with no sign of life after it (killed silently) could have caused the retries by dying: then nothing is named.
std::optional<Candidate> first_transport_fault_strategy(const ProcessTable& table, std::optional<int> world);

std::optional<Candidate> silent_rank_strategy(const ProcessTable& table, const Timeline& t, std::optional<int> world);
std::optional<Candidate> sequence_lag_strategy(const ProcessTable& table);
// Two ranks of one process group that disagree on what a work number was: one rank timed out waiting in work N, and
// another rank of the group had completed N (its "last completed NCCL work", or a later work it timed out on). A
// collective completes only when every rank runs it, so the two issued different collectives under that number:
// they took different code paths.
struct DivergedSequences {
    const Process* waiting = nullptr;     // the rank that timed out in `work`
    const Event* wait = nullptr;          // its timeout
    const Process* ahead = nullptr;       // a rank of the same group that had completed `work`
    const Event* completed = nullptr;     // its line that says so
    long long work = 0;                   // the sequence number
    long long ahead_completed = 0;        // the last work `ahead` completed (>= work)
};
std::optional<DivergedSequences> find_diverged_sequences(const ProcessTable& table);
std::optional<Candidate> desync_strategy(const ProcessTable& table);
// nvidia-smi's snapshot of a hung job's GPUs: ranks waiting in a collective spin in NCCL's kernels at full
// utilisation, and a rank that never reached it (stuck in Python, data loading, I/O) leaves its GPU idle. One snapshot,
// of a single-node job whose every GPU it shows, with every GPU busy but exactly one idle: that GPU's rank, read as
// local rank N on GPU N, is the one the others wait for. An inference from utilisation alone: weak, and the rank is
// inferred.
std::optional<Candidate> idle_gpu_strategy(const ProcessTable& table, const Timeline& t, std::optional<int> world);
std::optional<Candidate> agent_first_exit_strategy(const ProcessTable& table, const Timeline& t);
std::optional<Candidate> mismatch_minority_strategy(const ProcessTable& table);
// The work each rank waited on, compared at one sequence number of one process group (the watchdog's WorkNCCL
// descriptor: OpType, and NumelIn/NumelOut where every rank must pass the same sizes). Every rank runs the same
// collective at a sequence number; one rank alone running another op or size, against two or more that agree,
// took a different path: it diverged. An even split names no one.
std::optional<Candidate> work_minority_strategy(const ProcessTable& table);
// TORCH_DISTRIBUTED_DEBUG=DETAIL's check, read as it runs (ProcessGroupWrapper::runCollectiveChecks): each rank
// gathers every rank's fingerprint, compares them in rank order, and reports the first rank whose fingerprint differs
// from its own. So "Rank R is running ..., but Rank Q is running ..." also says that every rank below Q ran what R
// ran. When the reports here show one rank Q differing from two or more that agree, and every report is what the
// check prints if Q alone diverged (the others name Q; Q names the lowest other rank), Q diverged: strong when the
// ranks shown to agree and Q cover the whole world, weak otherwise (ranks above Q may differ too).
// `even_split`: every rank of the world reported and no single rank is singled out (two ranks naming each other):
// the ranks took different paths, and none of them is the initiator.
struct MismatchReading {
    std::optional<Candidate> divergent;
    bool even_split = false;
};
MismatchReading mismatch_named_strategy(const ProcessTable& table, std::optional<int> world);
std::optional<Candidate> own_end_strategy(const ProcessTable& table, const Timeline& t);

}  // namespace denpex
