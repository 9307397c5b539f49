// Fix advice: an entry's fixes, checked against what the logs show (the PyTorch versions their message formats
// imply, the launcher) — applicable ones first, conditional ones with their open condition, and ones that
// cannot change the outcome here marked "not needed here" with the reason.
#pragma once

#include <vector>

#include "engine/diagnosis.hpp"
#include "engine/knowledge.hpp"
#include "engine/timeline.hpp"

namespace denpex {

std::vector<FixAdvice> advise(const Entry& entry, const Timeline& t, bool launched_without_torchrun);

}  // namespace denpex
