// Reasoner: from a Timeline to a Report — which rank failed first, and what the others only suffered.
//
// Contract. `reason()` is a pure function of the Timeline and the knowledge base. It resolves raw line
// attributions into processes, then runs independent strategies, each yielding a candidate with its evidence:
//   initiating-event  the process with an initiating-class error (OOM, Xid, ECC, segfault, SIGKILL, a Python
//                     exception) — the earliest one when several, comparing times only where comparable
//                     (same file, or dated timestamps); the same error on several ranks at once is not one
//                     rank's failure;
//   silent-rank       every rank reports collateral errors but one, which is present in the logs and silent;
//   sequence-lag      the rank whose last enqueued NCCL work is below the SeqNum the others timed out on;
//   desync-report     the lagging ranks named by TORCH_NCCL_DESYNC_DEBUG;
//   agent-first-exit  torchrun's agent on a node: the worker it reported failed and did not send SIGTERM
//                     (supporting evidence only: the first to exit may itself be a timed-out survivor).
// torchrun's "Root Cause (first observed failure)" is reported as a note when it disagrees, never used.
// When no strategy decides, the diagnosis is undetermined and `missing` names the fact that would decide.
// The reasoner never names an entry id: roles, scenarios and verdicts come from the knowledge data.
#pragma once

#include "engine/diagnosis.hpp"
#include "engine/knowledge.hpp"
#include "engine/timeline.hpp"

namespace denpex {

Report reason(const Timeline& timeline, const KnowledgeBase& kb);

}  // namespace denpex
