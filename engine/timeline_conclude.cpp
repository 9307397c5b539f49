#include "engine/timeline_conclude.hpp"

#include <algorithm>

namespace denpex {

void conclude_timeline(Timeline& t) {
    if (t.topology.world_size) t.world_size = std::max(t.world_size.value_or(0), *t.topology.world_size);
    // srun's "srun: error: host: task N" lines name the host of task N's group, and of the file the step wrote.
    for (auto& g : t.groups)
        if (g.srun_task)
            if (auto it = t.topology.task_hosts.find(*g.srun_task); it != t.topology.task_hosts.end()) g.hosts.insert(it->second);
    // A version range that became empty means the formats disagree (mixed logs): say nothing about versions.
    if (t.torch_known && t.torch.empty()) t.torch_known = false;
    t.apply_stated_torch();
}

}  // namespace denpex
