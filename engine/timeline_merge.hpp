// Merging Timelines read in parallel: each thread's Collector reads a disjoint set of inputs (all files of one
// node stay together, so node groups never span two Timelines) and the results are appended in input order.
#pragma once

#include "engine/timeline.hpp"

namespace denpex {

// Appends `from` to `into`: sources, groups and events are renumbered; maps and sets are united; a PyTorch
// version range is intersected. Deterministic for a given order of calls.
void merge_timeline(Timeline& into, Timeline&& from);

}  // namespace denpex
