// Decision: the verdict as a pure function of a small model of the job (no log text, no knowledge).
//
// Contract. `decide()` reads only `JobFacts` and returns one of
//   determined    one suspect is the initiator: `lead` indexes it, `confidence` says how well it is supported;
//   systemic      the same fault everywhere, a failure of the whole job, or a hang in the teardown after the work
//                 was done: no single rank;
//   undetermined  no suspect survives: `missing` says which kind of fact would decide;
//   nothing       no process failed at all.
// Rules, in order:
//   1. A suspect whose own event came after the stall had begun (`consequence`) never leads.
//   2. A suspect contradicted by another of at least medium strength that names a different rank is never
//      named: the verdict is undetermined, and the missing fact is what would order the two.
//   3. With no suspect, failures that are all checks comparing ranks leave it undetermined: the values compared,
//      not the ranks raising the error, say which one diverged (never "the same fault everywhere"); so do ranks
//      that ran different collectives under one sequence number (the code path that differs is the missing fact).
//   4. With no suspect, every rank hung in its first collective, or every rank failing to reach one peer, is systemic
//      at low confidence (an inference from all of them failing alike); the other job-wide facts are systemic at
//      medium.
//   5. Confidence is calibrated by the independent kinds of support the agreeing suspects bring:
//      two or more kinds → high, one → medium, silence, order or GPU utilisation alone → low. A world whose ranks are not all
//      in the logs, or a global rank that is inferred rather than read, caps it at medium.
// Every sentence the user reads is written elsewhere (the reasoner explains a Decision); this file decides.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace denpex {

enum class Confidence { low, medium, high };
std::string_view to_string(Confidence c);

// The ways of naming a suspect (engine/strategies).
enum class Strategy {
    initiating_event, silent_rank, sequence_lag, desync_report, agent_first_exit, mismatch_minority, own_end,
    work_minority, mismatch_named, idle_gpu, first_transport_fault
};
std::string_view to_string(Strategy s);

// How much a strategy's candidate weighs against another's: a strong one beats a medium one; weak ones only
// support, they never contradict.
enum class Strength { weak = 1, medium = 2, strong = 3 };

// One kind of evidence that a suspect failed first. Kinds are independent of each other: two reports of the
// same fact (a traceback and the launcher's summary of the same exit) are one kind.
enum class Support {
    own_error,        // the process printed an error of its own (OOM, segfault, exception, ...)
    first_in_time,    // its error precedes the others' collateral in causal time, or the stall's start matches it
    peers_point_at,   // the others' collateral names it (a peer host or rank, "Connection closed by localRank N")
    sequence_lag,     // it never enqueued the NCCL work the others timed out on (same process group)
    desync_report,    // TORCH_NCCL_DESYNC_DEBUG names it
    work_compared,    // at one sequence number of one group, the work it waited on differs from every other rank's
    outside_record,   // a record beside its own output tells how it ended: the kernel's OOM killer by pid, an Xid
                      // by bus id, the agent's report of its failed exit, the agent or srun ending it still running
    present_silent,   // its stream is here, holds the others' errors, and it reports none while they all wait
    silence,          // every other rank reports collateral; it has no stream here to say anything (an inference)
    order,            // it is the first the launcher saw exit (an inference from order)
    utilization,      // its GPU sat idle while the others' spun in a collective (an inference from a snapshot)
};

struct Suspect {
    std::size_t target = 0;     // the worker it names: suspects with equal targets name the same worker
    std::optional<int> rank;
    Strategy strategy = Strategy::initiating_event;
    Strength strength = Strength::medium;
    std::set<Support> support;
    bool consequence = false;   // its event came after the stall it would explain had begun
    bool rank_inferred = false; // its global rank is an inference (an offset, task = rank), not read
};

enum class Outcome { nothing, determined, systemic, undetermined };

// What would decide an undetermined verdict.
enum class MissingFact {
    none,
    unranked_process,    // the failing process is known, its rank is not
    order_of_failures,   // several processes failed on their own; nothing orders them
    signals_disagree,    // suspects of comparable weight name different ranks
    collateral_only,     // only collateral errors are here: the initiator wrote to a log that is not
    workers_output,      // the job was ended from outside and no worker's output says what it was doing before
    divergent_rank,      // a check comparing ranks failed: the values each rank compared say which one diverged
    diverged_path,       // ranks ran different collectives under one sequence number: which rank's code path differs
};

struct JobFacts {
    std::vector<Suspect> suspects;   // each strategy's candidate, in any order
    bool any_failure = false;        // some process shows an error of any role
    bool systemic = false;           // the same fault on several ranks at once, or a failure of the whole job
    bool systemic_inferred = false;  // ... read from reports shredded into each other, not from the error twice
    bool unranked_failure = false;   // a process failed on its own, but no line gives its rank
    bool unordered_failures = false; // several processes failed on their own, in an order the logs do not give
    bool after_finish = false;       // the only errors came after processes had finished their work (teardown)
    bool no_node_served_store = false;   // every node is here, no worker started, no agent reached the store
    // The launch fixes several nodes and puts the rendezvous on each agent's own loopback; no worker started.
    bool private_rendezvous = false;
    // NCCL's transport runs on the loopback interface in a job of several nodes, and every failure is of communication.
    bool transport_on_loopback = false;
    bool timeout_too_short = false;      // every rank waited, under a limit no collective can meet
    // Every rank of the world waited in its first collective, none with an error of its own: the transport, not a
    // rank. An inference from every rank having arrived, so low.
    bool first_collective_hung = false;
    // Every rank of the world failed to reach the same peer, its own host's ranks too, none with an error of its own:
    // the address or the network path, not a rank. An inference from all of them failing alike, so low.
    bool one_peer_unreachable = false;
    // Two processes announced one global rank and some ranks of the world none: ranks were given out twice. Read from
    // counting announcements, so low.
    bool duplicate_ranks = false;
    // A store barrier counted more processes joining than the world has: the launch started workers twice. A count
    // the store itself reports, so medium.
    bool overfull_world = false;
    // The job's end from outside is all there is: no worker's own output, so an earlier stall is not ruled out.
    bool outside_end_without_workers = false;
    // The only failures are checks that compare values across ranks (Mark::compares_ranks), and nothing names the
    // rank whose values differ.
    bool ranks_disagree = false;
    // One rank timed out in a work another rank had completed: the ranks issued different collectives under one
    // sequence number, so being behind names no one (strategies.hpp, find_diverged_sequences).
    bool sequences_diverged = false;
    int unseen_ranks = 0;            // ranks of the world with no output in these inputs
};

struct Decision {
    Outcome outcome = Outcome::nothing;
    std::optional<std::size_t> lead;        // index into JobFacts::suspects (determined only)
    std::vector<std::size_t> agreeing;      // suspects naming the lead's rank, the lead first
    std::vector<std::size_t> disagreeing;   // suspects of at least medium strength naming another rank
    std::vector<std::size_t> consequences;  // suspects set aside as consequences of the stall
    Confidence confidence = Confidence::low;
    MissingFact missing = MissingFact::none;
};

Decision decide(const JobFacts& facts);

// The kinds of support that count as corroboration (not an inference from silence or order).
bool corroborates(Support s);

}  // namespace denpex
