// Merging Timelines as read: the shares of several reader threads, and partial models read on other machines
// (engine/partial_model.hpp), into the one Timeline a single reader of every input would have built.
//
// Contract. Both Timelines are as read, not yet concluded (engine/timeline_conclude.hpp); the result is too, and
// is concluded once after the last merge. `from`'s inputs come after `into`'s in reading order: its sources,
// groups and exit records are appended and renumbered (Event::source, RawKey::group in events, exits and
// process summaries), its events' reading order continues after `into`'s last. Maps and sets are united the
// way the Collector fills them, so the result does not depend on where the inputs were split:
//   - first value wins: a bus id's rank (the world communicator's line comes first);
//   - last value wins: srun's task -> host; NCCL's (host, pid) -> rank among the largest communicators;
//   - largest wins: world size, stated node counts; version ranges of message formats intersect.
// The inputs of one node (one group) must be read into one Timeline: groups are never united across merges
// (two machines' "stderr.log" are different writers). Associative: (A+B)+C equals A+(B+C), field by field.
// Never throws but for memory.
#pragma once

#include "engine/timeline.hpp"

namespace denpex {

void merge_timeline(Timeline& into, Timeline&& from);

}  // namespace denpex
