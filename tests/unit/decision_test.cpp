// The decision on small hand-built models: no log text, one rule per test (engine/decision.hpp).
#include <doctest/doctest.h>

#include "engine/decision.hpp"

using namespace denpex;

namespace {

Suspect suspect(std::size_t target, int rank, Strategy strategy, Strength strength, std::set<Support> support) {
    Suspect s;
    s.target = target;
    s.rank = rank;
    s.strategy = strategy;
    s.strength = strength;
    s.support = std::move(support);
    return s;
}

Suspect own_error(int rank, std::set<Support> more = {}) {
    more.insert(Support::own_error);
    return suspect(static_cast<std::size_t>(rank), rank, Strategy::initiating_event, Strength::strong, more);
}

}  // namespace

TEST_CASE("decision: nothing failed, nothing decided") {
    JobFacts f;
    CHECK(decide(f).outcome == Outcome::nothing);
}

TEST_CASE("decision: an own error alone is medium; corroborated in time or by the peers it is high") {
    JobFacts f;
    f.any_failure = true;
    f.suspects = {own_error(5)};
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::determined);
    REQUIRE(d.lead);
    CHECK(f.suspects[*d.lead].rank == 5);
    CHECK(d.confidence == Confidence::medium);

    f.suspects = {own_error(5, {Support::first_in_time})};
    CHECK(decide(f).confidence == Confidence::high);
    f.suspects = {own_error(5, {Support::peers_point_at})};
    CHECK(decide(f).confidence == Confidence::high);
}

TEST_CASE("decision: two strategies agreeing on one worker are two kinds of evidence") {
    JobFacts f;
    f.any_failure = true;
    f.suspects = {own_error(3), suspect(3, 3, Strategy::sequence_lag, Strength::medium, {Support::sequence_lag})};
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::determined);
    CHECK(d.agreeing.size() == 2);
    CHECK(d.confidence == Confidence::high);
}

TEST_CASE("decision: silence or order alone is low") {
    JobFacts f;
    f.any_failure = true;
    f.suspects = {suspect(4, 4, Strategy::silent_rank, Strength::medium, {Support::silence})};
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::determined);
    CHECK(d.confidence == Confidence::low);
    f.suspects = {suspect(2, 2, Strategy::agent_first_exit, Strength::weak, {Support::order})};
    CHECK(decide(f).confidence == Confidence::low);
    // Silence in a stream shown to cover the failure is evidence; with the agent ending it still running, two kinds.
    f.suspects = {suspect(2, 2, Strategy::silent_rank, Strength::medium, {Support::present_silent})};
    CHECK(decide(f).confidence == Confidence::medium);
    f.suspects = {suspect(2, 2, Strategy::silent_rank, Strength::medium, {Support::present_silent, Support::outside_record})};
    CHECK(decide(f).confidence == Confidence::high);
    // Silence beside an independent kind (sequence numbers) is one corroborating kind: medium.
    f.suspects = {suspect(4, 4, Strategy::silent_rank, Strength::medium, {Support::silence}),
                  suspect(4, 4, Strategy::sequence_lag, Strength::medium, {Support::sequence_lag})};
    CHECK(decide(f).confidence == Confidence::medium);
}

TEST_CASE("decision: a contradicted suspect is never named") {
    JobFacts f;
    f.any_failure = true;
    f.suspects = {own_error(1), suspect(6, 6, Strategy::sequence_lag, Strength::medium, {Support::sequence_lag})};
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::undetermined);
    CHECK(!d.lead);
    CHECK(d.missing == MissingFact::signals_disagree);
    CHECK(d.disagreeing.size() == 1);
}

TEST_CASE("decision: a weak suspect elsewhere supports nothing and contradicts nothing") {
    JobFacts f;
    f.any_failure = true;
    f.suspects = {own_error(1), suspect(6, 6, Strategy::agent_first_exit, Strength::weak, {Support::order})};
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::determined);
    CHECK(f.suspects[*d.lead].rank == 1);
    CHECK(d.confidence == Confidence::medium);
}

TEST_CASE("decision: a consequence of the stall never leads") {
    JobFacts f;
    f.any_failure = true;
    Suspect late = own_error(0, {Support::first_in_time});
    late.consequence = true;
    f.suspects = {late};
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::undetermined);
    CHECK(d.missing == MissingFact::collateral_only);
    CHECK(d.consequences.size() == 1);
}

TEST_CASE("decision: coverage caps confidence; an inferred rank too") {
    JobFacts f;
    f.any_failure = true;
    f.suspects = {own_error(5, {Support::first_in_time})};
    f.unseen_ranks = 4;
    CHECK(decide(f).confidence == Confidence::medium);
    f.unseen_ranks = 0;
    f.suspects.front().rank_inferred = true;
    CHECK(decide(f).confidence == Confidence::medium);
}

TEST_CASE("decision: without a suspect, what is missing follows what the logs show") {
    JobFacts f;
    f.any_failure = true;
    CHECK(decide(f).missing == MissingFact::collateral_only);
    f.unordered_failures = true;
    CHECK(decide(f).missing == MissingFact::order_of_failures);
    f.unranked_failure = true;
    CHECK(decide(f).missing == MissingFact::unranked_process);
    f = JobFacts{};
    f.any_failure = true;
    f.systemic = true;
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::systemic);
    CHECK(d.confidence == Confidence::medium);
}

TEST_CASE("decision: ranks that ran different collectives under one number leave the code path as the missing fact") {
    JobFacts f;
    f.any_failure = true;
    f.sequences_diverged = true;
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::undetermined);
    CHECK(d.missing == MissingFact::diverged_path);
    // A rank that failed on its own still leads: the divergence is then how the others saw it.
    f.suspects = {own_error(2)};
    d = decide(f);
    CHECK(d.outcome == Outcome::determined);
    CHECK(d.missing == MissingFact::none);
}

TEST_CASE("decision: every rank failing to reach one peer is systemic, but only at low confidence") {
    JobFacts f;
    f.any_failure = true;
    f.one_peer_unreachable = true;
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::systemic);
    CHECK(d.confidence == Confidence::low);
    f.suspects = {own_error(1)};   // a rank with an error of its own is the one that failed
    CHECK(decide(f).outcome == Outcome::determined);
}

TEST_CASE("decision: a launch no node could serve, or a limit no collective meets, is the whole job's") {
    for (bool JobFacts::*fact : {&JobFacts::no_node_served_store, &JobFacts::timeout_too_short}) {
        JobFacts f;
        f.any_failure = true;
        f.*fact = true;
        const Decision d = decide(f);
        CHECK(d.outcome == Outcome::systemic);
        CHECK_FALSE(d.lead);
        // A suspect with an error of its own still leads: the job-wide reading applies only when nobody failed alone.
        f.suspects = {own_error(3)};
        CHECK(decide(f).outcome == Outcome::determined);
    }
}

TEST_CASE("decision: failures that are all checks comparing ranks are undetermined, never systemic") {
    JobFacts f;
    f.any_failure = true;
    f.ranks_disagree = true;
    f.systemic = true;   // even where the same error on every rank would otherwise read as one common cause
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::undetermined);
    CHECK(d.missing == MissingFact::divergent_rank);
}

TEST_CASE("decision: a divergent rank named by the work compared is determined at medium on that alone") {
    JobFacts f;
    f.any_failure = true;
    f.ranks_disagree = true;
    f.suspects = {suspect(2, 2, Strategy::work_minority, Strength::strong, {Support::work_compared})};
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::determined);
    CHECK(d.confidence == Confidence::medium);
}

TEST_CASE("decision: a rendezvous private to each node is a failure of the whole launch") {
    JobFacts f;
    f.any_failure = true;
    f.private_rendezvous = true;
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::systemic);
    CHECK(d.missing == MissingFact::none);
}

TEST_CASE("decision: every rank hung in the first collective is systemic, but only at low confidence") {
    JobFacts f;
    f.any_failure = true;
    f.first_collective_hung = true;
    Decision d = decide(f);
    CHECK(d.outcome == Outcome::systemic);
    CHECK(d.confidence == Confidence::low);
    f.suspects = {own_error(1)};   // a rank with an error of its own decides instead
    CHECK(decide(f).outcome == Outcome::determined);
}

TEST_CASE("decision: a systemic reading inferred from interleaved reports is low") {
    JobFacts f;
    f.any_failure = true;
    f.systemic = true;
    CHECK(decide(f).outcome == Outcome::systemic);
    CHECK(decide(f).confidence == Confidence::medium);
    f.systemic_inferred = true;
    CHECK(decide(f).outcome == Outcome::systemic);
    CHECK(decide(f).confidence == Confidence::low);
}

TEST_CASE("decision: the same error on every rank here, with ranks of the world not here, is systemic only at low") {
    JobFacts f;
    f.any_failure = true;
    f.systemic = true;
    CHECK(decide(f).confidence == Confidence::medium);
    f.unseen_ranks = 8;   // one node of two: the other node's ranks may hold the first failure
    CHECK(decide(f).outcome == Outcome::systemic);
    CHECK(decide(f).confidence == Confidence::low);
}

TEST_CASE("decision: NCCL on loopback in a multi-node job is the job's setting, even when one rank failed first") {
    JobFacts f;
    f.any_failure = true;
    f.suspects.push_back(suspect(0, 0, Strategy::initiating_event, Strength::medium, {Support::own_error}));
    CHECK(decide(f).outcome == Outcome::determined);
    f.transport_on_loopback = true;   // every failure is a connection the setting makes impossible
    CHECK(decide(f).outcome == Outcome::systemic);
    CHECK(decide(f).confidence == Confidence::medium);
    f.unseen_ranks = 4;
    CHECK(decide(f).confidence == Confidence::low);
}

TEST_CASE("decision: a store that counted more workers than the world is the launch's fault, at medium") {
    JobFacts f;
    f.any_failure = true;
    f.unseen_ranks = 4;   // the workers' own lines name no rank
    f.overfull_world = true;
    CHECK(decide(f).outcome == Outcome::systemic);
    CHECK(decide(f).confidence == Confidence::medium);
}
