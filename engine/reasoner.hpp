// Reasoner: from a Timeline to a Report — which rank failed first, and what the others only suffered.
//
// Contract. `reason()` is a pure function of the Timeline and the knowledge base. It resolves raw line
// attributions into processes (engine/process_table), builds the model of the job (engine/job_model: coverage,
// the stall's start, consequences, each strategy's suspect with its kinds of support), lets `decide()`
// (engine/decision) choose one of determined / systemic / undetermined with a calibrated confidence, and only then
// explains: the evidence lines, one reason per fact that decided, the collateral ranks, the fix for the version and
// launcher the logs show, and, when undetermined, the missing fact computed from coverage. torchrun's "Root Cause
// (first observed failure)" is reported as a note when it disagrees, never used. The reasoner never names an entry
// id: roles, scenarios, verdicts and outside ends come from the knowledge data.
#pragma once

#include "engine/diagnosis.hpp"
#include "engine/knowledge.hpp"
#include "engine/timeline.hpp"

namespace denpex {

Report reason(const Timeline& timeline, const KnowledgeBase& kb);

}  // namespace denpex
