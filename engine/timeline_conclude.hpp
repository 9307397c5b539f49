// Concluding a Timeline: the facts that can only be drawn once every input is in.
//
// Contract. A Timeline as read (Collector::finish_read, a thread's share of the inputs, a partial model) keeps
// what its lines said and nothing derived across inputs: the world size srun's task list implies, the hosts of
// srun task groups, whether the message formats' version ranges disagree, the version stated outright. Readers'
// Timelines are merged as read (engine/timeline_merge.hpp) and concluded once, after the last merge: concluding
// before merging would lose facts (a version range emptied by one input and widened again by another's).
// Idempotent: concluding twice changes nothing.
#pragma once

#include "engine/timeline.hpp"

namespace denpex {

void conclude_timeline(Timeline& t);

}  // namespace denpex
