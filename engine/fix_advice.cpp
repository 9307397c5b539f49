#include "engine/fix_advice.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace denpex {

// Each fix's condition is checked part by part against what the logs show (the PyTorch versions their message
// formats imply, whether torchrun launched the job). A part known false drops the fix to "not needed here"
// with the reason; parts not decidable from the logs are shown as the condition; known-true parts are dropped
// from the wording. Fixes that apply keep the entry's own order (its author put the fix of the cause first),
// then those that depend on something the logs do not show, then those not needed here.
std::vector<FixAdvice> advise(const Entry& entry, const Timeline& t, bool launched_without_torchrun) {
    std::vector<std::pair<int, FixAdvice>> ranked;   // 0 applies (unconditional or condition met), 1 open, 2 not needed
    for (const FixItem& f : entry.fix) {
        FixAdvice a{f.text, f.env, "yes", f.why};
        int order = 0;
        if (f.has_condition) {
            std::vector<std::string> open_parts, false_parts;
            bool torch_false = false, launcher_false = false;
            if (f.when.torch) {
                std::string part = "on PyTorch " + f.when.torch->str();
                if (t.torch_known && t.torch.disjoint(*f.when.torch)) false_parts.push_back(part), torch_false = true;
                else if (!(t.torch_known && t.torch.within(*f.when.torch))) open_parts.push_back(part);
            }
            if (f.when.launcher) {
                bool want_not = (*f.when.launcher)[0] == '!';
                std::string name = want_not ? f.when.launcher->substr(1) : *f.when.launcher;
                std::string part = want_not ? "not launched by " + name : "launched by " + name;
                bool seen = name == "torchrun" && t.torchrun;
                bool absent = name == "torchrun" && launched_without_torchrun && !t.torchrun;
                if ((seen && want_not) || (absent && !want_not)) false_parts.push_back(part), launcher_false = true;
                else if (!seen && !absent) open_parts.push_back(part);   // not seeing a launcher's lines does not prove it was absent
            }
            if (!false_parts.empty()) {
                order = 2;
                a.applies = "not needed here";
                std::string seen;
                if (torch_false) seen = "the logs' message formats imply PyTorch " + t.torch.str();
                if (launcher_false)
                    seen += std::string(seen.empty() ? "" : " and ") +
                            (t.torchrun ? "torchrun launched the job" : "srun started the workers itself");
                std::string cond;
                for (const auto& p : false_parts) cond += (cond.empty() ? "" : " and ") + p;
                a.why = "it applies only to jobs " + cond + ", but " + seen + "." + (f.why.empty() ? "" : " " + f.why);
            } else if (!open_parts.empty()) {
                order = 1;
                std::string cond;
                for (const auto& p : open_parts) cond += (cond.empty() ? "" : " and ") + p;
                a.applies = "if the job is " + cond;
            }
        }
        ranked.emplace_back(order, std::move(a));
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<FixAdvice> out;
    for (auto& [order, a] : ranked) out.push_back(std::move(a));
    return out;
}

}  // namespace denpex
