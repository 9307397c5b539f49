// JobModel: what the engine knows about the job before it decides — the facts `decide()` reads, each tied back
// to the processes and lines that gave it.
//
// Contract. Built once per diagnosis from a ProcessTable (identity: one process = one worker) and its Timeline:
//   coverage    the world size and which of its ranks have output here (`unseen`);
//   stall       when the ranks' wait began: a collective timeout at T with Timeout(ms)=X says its rank was
//               blocked from about T − X; the first timeout line itself says the stall was already seen;
//   consequence an initiating event the knowledge marks as an outside end (the scheduler's limit, a kill, the
//               agent's signal) that happened after the stall had begun is its consequence: it is left out of
//               the initiating strategy, so it can never be named the cause;
//   unexplained an outside end of the whole job whose line does not say why is no verdict either: it is left
//               out of the initiating strategy, and who sent it becomes the missing fact;
//   finished    processes that reached program exit before any error of their own; when every error in the job
//               comes after the first of them and nothing failed on its own, the failure is the teardown;
//   job-wide    readings of the whole job (a store no node served, a private rendezvous, NCCL on loopback, a
//               timeout no collective meets, every rank hung in its first collective or failing to reach one peer,
//               ranks given out twice); each is a JobFacts flag with the lines that show it;
//   diverged    one rank waiting in a work another rank of its group completed: the ranks ran different
//               collectives under one number, so no rank is behind (no sequence-lag suspect);
//   suspects    each strategy's candidate with the independent kinds of support it brings (own error, first in
//               causal time, the peers' collateral pointing at it, sequence numbers, an outside record, or
//               only silence / order).
// Nothing here writes a sentence for the user except each candidate's own reason.
#pragma once

#include <optional>
#include <set>
#include <map>
#include <vector>

#include "engine/decision.hpp"
#include "engine/process_table.hpp"
#include "engine/strategies.hpp"
#include "engine/timeline.hpp"

namespace denpex {

struct StallOnset {
    const Event* detected = nullptr;      // the earliest collective timeout (or other wait) seen
    std::optional<double> blocked_since;  // the latest time by which some rank was already blocked (T − X)
};

struct JobModel {
    std::optional<int> world;
    std::vector<int> unseen;                         // ranks of the world with no output here
    StallOnset stall;
    std::vector<const Event*> consequences;          // outside ends after the stall began (never initiators)
    std::map<const Event*, const Event*> consequence_of;   // each consequence -> the wait or failure it came after
    // Errors a process printed after its own collective had already timed out, or an OOM asking for more than the
    // whole GPU right below the frame of a collective that allocates the size its peers sent (the garbage size a
    // broken broadcast left behind): the stall's fallout on that process, never the stall's cause.
    enum class FalloutCause { after_own_wait, size_from_broken_collective };
    std::vector<const Event*> fallout;
    std::map<const Event*, FalloutCause> fallout_cause;
    // Outside ends of the whole job that do not say why (the agent told to stop): no verdict on their own; who sent
    // them is the missing fact.
    std::vector<const Event*> unexplained_ends;
    // Processes that reached program exit with no error of their own before it, when every error in the job came
    // after the first of them: the job finished its work and then hung or failed in teardown.
    std::vector<const Event*> finished;
    // One agent's failure to reach the rendezvous store per node, when every node the launch fixes is here and none
    // started a worker: no node served the store, a misconfiguration of the whole job (an endpoint no node has).
    std::vector<const Event*> store_served_by_none;
    // The launch fixes two or more nodes, the rendezvous endpoint is the agent's own loopback, no worker started, and
    // the agents' rendezvous failed: each node waited in a store of its own that no other node could join.
    std::vector<const Event*> private_rendezvous;
    // NCCL's lines saying its bootstrap or socket transport uses the loopback interface, in a job of two nodes or
    // more whose every failure is of communication: no node could reach another (one line per host).
    std::vector<const Event*> transport_on_loopback;
    // Every rank of the world waited, with a collective timeout shorter than any collective can take (1 ms): the
    // limit fired on its own, a setting of the whole job rather than a rank's failure. One wait per rank.
    std::vector<const Event*> timeout_too_short;
    // Every rank of the world waited in the default group's first collective, with no error of its own: the transport
    // never completed a collective. One wait per rank.
    std::vector<const Event*> first_collective_hung;
    // Every rank of the world failed to reach one peer (the same host in every error), none with an error of its own:
    // the address or the path to it is wrong for all. One error per rank.
    std::vector<const Event*> one_peer_unreachable;
    // Two processes announced the same global rank in one attempt while ranks of the world were never announced: the
    // launch gave processes the same rank (every node the same node rank). The duplicated announcements.
    std::vector<const Event*> duplicate_ranks;
    // A store-based barrier that counted more processes joining than the world size (`world_size=2, worker_count=4`):
    // more workers were started than the world has. The barrier's lines that say so.
    std::vector<const Event*> overfull_world;
    // One rank timed out waiting in a work another rank of its group had completed: the two ran different collectives
    // under one number (strategies.hpp, find_diverged_sequences).
    std::optional<DivergedSequences> diverged_sequences;
    InitiatingResult init;                           // the initiating strategy's view, consequences left out
    const Event* adopted = nullptr;                  // an unranked error the agent's first exit explains
    std::vector<Candidate> candidates;               // parallel to facts.suspects
    JobFacts facts;
};

JobModel build_job_model(const ProcessTable& table, const Timeline& t);

}  // namespace denpex
