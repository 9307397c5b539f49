// Writing a partial model (engine/partial_model.hpp, format version 1). Defaults are left out (an unset
// optional, a false flag, a zero count), so a partial holds little more than its events' evidence.
#include <map>

#include <nlohmann/json.hpp>

#include "engine/entry_depth.hpp"
#include "engine/partial_model.hpp"

namespace denpex {
namespace {

using nlohmann::json;

// Indices into tables written once: the signatures events name, the sources evidence names.
struct Tables {
    std::map<const Signature*, std::size_t> signatures;
    json signature_list = json::array();
    std::map<std::string, std::size_t> sources;

    std::size_t signature(const Signature* sig) {
        auto [it, added] = signatures.try_emplace(sig, signatures.size());
        if (added) {
            const std::size_t place = sig->entry ? static_cast<std::size_t>(sig - sig->entry->signatures.data()) : 0;
            signature_list.push_back(json::array({sig->entry ? sig->entry->id : std::string(), sig->id, place}));
        }
        return it->second;
    }
    // A file name as its source's index when it is one (it nearly always is), else the name itself.
    json file(const std::string& name) const {
        auto it = sources.find(name);
        return it == sources.end() ? json(name) : json(it->second);
    }
};

template <class T>
void put(json& j, const char* key, const std::optional<T>& v) {
    if (v) j[key] = *v;
}
void put(json& j, const char* key, bool v) {
    if (v) j[key] = true;
}

json opt(const std::optional<int>& v) { return v ? json(*v) : json(); }
json opt(const std::optional<long>& v) { return v ? json(*v) : json(); }

json evidence(const Evidence& e, const Tables& tables) { return json::array({tables.file(e.file), e.line, e.text}); }

json timestamp(const Timestamp& t) {
    const int flags = (t.has_date ? 1 : 0) | (t.uptime ? 2 : 0) | (t.relative ? 4 : 0) | (t.whole_seconds ? 8 : 0);
    return json::array({t.seconds, flags});
}

json raw_key(const RawKey& k) { return json::array({k.group, opt(k.rank), opt(k.local_rank), opt(k.pid)}); }

json group(const Group& g) {
    json j = {{"name", g.name}};
    if (!g.hosts.empty()) j["hosts"] = g.hosts;
    if (!g.local_to_rank.empty()) j["local_to_rank"] = json(g.local_to_rank);
    put(j, "several_agents", g.several_agents);
    put(j, "node_from_path", g.node_from_path);
    if (!g.pid_to_local.empty()) j["pid_to_local"] = json(g.pid_to_local);
    if (!g.pid_rank.empty()) {
        json& list = j["pid_rank"] = json::array();
        for (const auto& [pid, rank] : g.pid_rank) list.push_back(json::array({pid, opt(rank)}));
    }
    if (!g.local_host_pid.empty()) {
        json& list = j["local_host_pid"] = json::array();
        for (const auto& [local, hp] : g.local_host_pid) list.push_back(json::array({local, hp.first, hp.second}));
    }
    if (!g.sigterm_pids.empty()) j["sigterm_pids"] = g.sigterm_pids;
    if (!g.relayed_pids.empty()) j["relayed_pids"] = g.relayed_pids;
    put(j, "srun_task", g.srun_task);
    put(j, "path_rank", g.path_rank);
    put(j, "path_node", g.path_node);
    put(j, "launch_first_rank", g.launch_first_rank);
    return j;
}

json event(const Event& e, Tables& tables) {
    json j = {{"sig", tables.signature(e.signature)}, {"src", e.source}, {"o", e.order}, {"k", raw_key(e.key)},
              {"ev", evidence(e.evidence, tables)}};
    if (!e.captures.empty()) j["c"] = e.captures;
    if (e.time) j["t"] = timestamp(*e.time);
    put(j, "tx", e.time_exact);
    put(j, "tb", e.time_before);
    if (e.time_age) j["ta"] = e.time_age;
    put(j, "tw", e.time_from_writer);
    put(j, "fl", e.from_launcher);
    put(j, "is", e.in_summary);
    put(j, "h", e.host);
    put(j, "cd", e.cuda_dev);
    put(j, "a", e.attempt);
    if (!e.process_group.empty()) j["pg"] = e.process_group;
    return j;
}

json exit_record(const ExitRecord& x, const Tables& tables) {
    json j = {{"g", x.group}, {"ev", evidence(x.evidence, tables)}};
    put(j, "r", x.rank);
    put(j, "lr", x.local_rank);
    put(j, "pid", x.pid);
    put(j, "x", x.exitcode);
    put(j, "h", x.host);
    put(j, "rc", x.root_cause_section);
    put(j, "a", x.attempt);
    return j;
}

json process(const RawKey& k, const ProcessSummary& p, const Tables& tables) {
    json j = {{"k", raw_key(k)}, {"n", p.lines}, {"last", evidence(p.last_line, tables)}};
    if (p.launcher_lines) j["ln"] = p.launcher_lines;
    if (p.job_lines) j["jn"] = p.job_lines;
    if (p.last_time) j["t"] = timestamp(*p.last_time);
    put(j, "h", p.host);
    put(j, "cd", p.cuda_dev);
    return j;
}

json topology(const JobTopology& t) {
    json j = json::object();
    if (!t.host_ranks.empty()) j["host_ranks"] = t.host_ranks;
    if (!t.masters.empty()) j["masters"] = t.masters;
    if (!t.task_hosts.empty()) j["task_hosts"] = json(t.task_hosts);
    put(j, "world_size", t.world_size);
    if (t.loopback_rendezvous) j["loopback_rendezvous"] = *t.loopback_rendezvous;
    return j;
}

json versions(const Timeline& t) {
    json j = json::object();
    put(j, "known", t.torch_known);
    if (t.torch.lo) j["lo"] = json::array({t.torch.lo->major, t.torch.lo->minor});
    if (t.torch.hi) j["hi"] = json::array({t.torch.hi->major, t.torch.hi->minor});
    if (!t.torch_stated.empty()) {
        json& list = j["stated"] = json::array();
        for (const Version& v : t.torch_stated) list.push_back(json::array({v.major, v.minor}));
    }
    return j;
}

json rank_maps(const Timeline& t) {
    json j = json::object();
    json& comm = j["comm"] = json::array();
    for (const auto& [hp, rn] : t.host_pid_to_rank) comm.push_back(json::array({hp.first, hp.second, rn.first, rn.second}));
    json& bus = j["bus"] = json::array();
    for (const auto& [hb, rank] : t.bus_to_rank) bus.push_back(json::array({hb.first, hb.second, rank}));
    j["named"] = t.ranks_named;
    return j;
}

json body(const Timeline& t) {
    Tables tables;
    json j = json::object();
    json& sources = j["sources"] = json::array();
    for (std::size_t i = 0; i < t.sources.size(); ++i) {
        sources.push_back(json::array({t.sources[i], i < t.job_output_lines.size() ? t.job_output_lines[i] : 0}));
        tables.sources.try_emplace(t.sources[i], i);
    }
    json& groups = j["groups"] = json::array();
    for (const Group& g : t.groups) groups.push_back(group(g));
    json& events = j["events"] = json::array();
    for (const Event& e : t.events)
        if (e.signature) events.push_back(event(e, tables));   // (the Collector never records one without)
    j["signatures"] = std::move(tables.signature_list);
    json& exits = j["exits"] = json::array();
    for (const ExitRecord& x : t.exits) exits.push_back(exit_record(x, tables));
    json& processes = j["processes"] = json::array();
    for (const auto& [k, p] : t.raw_processes) processes.push_back(process(k, p, tables));
    j["ranks"] = rank_maps(t);
    j["topology"] = topology(t.topology);
    j["torch"] = versions(t);
    put(j, "world_size", t.world_size);
    put(j, "nodes_stated", t.nodes_stated);
    put(j, "min_nodes", t.min_nodes);
    put(j, "max_nodes", t.max_nodes);
    put(j, "torchrun", t.torchrun);
    put(j, "rendezvous_on_loopback", t.rendezvous_on_loopback);
    if (!t.gpu_snapshots.empty()) {
        json& snapshots = j["gpu_snapshots"] = json::array();
        for (const GpuSnapshot& s : t.gpu_snapshots) {
            json gpus = json::array();
            for (const GpuReading& g : s.gpus) gpus.push_back(json::array({g.index, g.bus, g.utilization}));
            snapshots.push_back(json::array({s.source, s.line, std::move(gpus)}));
        }
    }
    if (!t.stacks.empty()) {
        json& stacks = j["stacks"] = json::array();
        for (Stack stack : t.stacks) stacks.push_back(std::string(to_string(stack)));
    }
    put(j, "deduplicated", t.deduplicated);
    j["counts"] = json::array({t.bytes, t.lines, t.truncated_lines});
    if (!t.warnings.empty()) j["warnings"] = t.warnings;
    return j;
}

}  // namespace

std::string PartialCodec::encode(const Timeline& t, const PartialOrigin& origin) const {
    json j = body(t);
    j["knowledge"] = digest_;
    j["host"] = origin.host;
    j["written_by"] = origin.written_by;
    const std::string rest = j.dump(-1, ' ', false, json::error_handler_t::replace);
    // The magic and the version first, whatever the body's order: a reader tells a partial by its first bytes.
    return std::string(kPartialMagic) + ",\"version\":" + std::to_string(kPartialVersion) + "," + rest.substr(1) + "\n";
}

}  // namespace denpex
