// Reading a partial model (engine/partial_model.hpp, format version 1). The file is untrusted: every value is
// checked for its type, every number for its type's range, every index against its table. Inside, a refusal is
// thrown as Refused and caught, with the JSON library's own errors and memory, at decode()'s boundary.
#include <cmath>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "engine/entry_depth.hpp"
#include "engine/partial_model.hpp"

namespace denpex {
namespace {

using nlohmann::json;

struct Refused : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] void refuse(const std::string& why) { throw Refused(why); }

template <class T>
T integer(const json& v, const char* what) {
    static_assert(std::is_integral_v<T>);
    if (v.is_number_unsigned()) {
        const auto n = v.get<std::uint64_t>();
        if (n <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(n);
    } else if (v.is_number_integer()) {
        const auto n = v.get<std::int64_t>();
        if constexpr (std::is_signed_v<T>) {
            if (n >= std::numeric_limits<T>::min() && n <= std::numeric_limits<T>::max()) return static_cast<T>(n);
        } else if (n >= 0 && static_cast<std::uint64_t>(n) <= std::numeric_limits<T>::max()) {
            return static_cast<T>(n);
        }
    }
    refuse(std::string(what) + " is not a number in range");
}

template <class T>
std::optional<T> optional_integer(const json& v, const char* what) {
    if (v.is_null()) return std::nullopt;
    return integer<T>(v, what);
}

std::uint32_t index(const json& v, std::size_t size, const char* what) {
    const auto i = integer<std::uint32_t>(v, what);
    if (i >= size) refuse(std::string(what) + " points past its table");
    return i;
}

const std::string& text(const json& v, const char* what) {
    if (!v.is_string()) refuse(std::string(what) + " is not a string");
    return v.get_ref<const std::string&>();
}

double real(const json& v, const char* what) {
    if (!v.is_number() || !std::isfinite(v.get<double>())) refuse(std::string(what) + " is not a finite number");
    return v.get<double>();
}

// Object fields: `need` refuses a missing one, the others read an absent one as its default.
const json& need(const json& obj, const char* key) {
    if (!obj.is_object()) refuse(std::string("an object was expected around \"") + key + "\"");
    auto it = obj.find(key);
    if (it == obj.end()) refuse(std::string("\"") + key + "\" is missing");
    return *it;
}
const json& maybe(const json& obj, const char* key) {
    static const json null;
    if (!obj.is_object()) refuse(std::string("an object was expected around \"") + key + "\"");
    auto it = obj.find(key);
    return it == obj.end() ? null : *it;
}
bool flag(const json& obj, const char* key) {
    const json& v = maybe(obj, key);
    if (v.is_null()) return false;
    if (!v.is_boolean()) refuse(std::string("\"") + key + "\" is not true or false");
    return v.get<bool>();
}
template <class T>
std::optional<T> opt_field(const json& obj, const char* key) {
    return optional_integer<T>(maybe(obj, key), key);
}
std::optional<std::string> opt_text(const json& obj, const char* key) {
    const json& v = maybe(obj, key);
    if (v.is_null()) return std::nullopt;
    return text(v, key);
}

const json& array(const json& v, const char* what, std::size_t size = 0) {
    if (!v.is_array() || (size && v.size() != size)) refuse(std::string(what) + " is not the list it should be");
    return v;
}
// An absent list reads as empty.
const json& list(const json& obj, const char* key) {
    static const json empty = json::array();
    const json& v = maybe(obj, key);
    return v.is_null() ? empty : array(v, key);
}

// The body's sections, one reader each. PartialReading holds the tables later sections index into.
struct PartialReading {
    const std::map<std::string, const Entry*, std::less<>>& entries;
    Timeline t;
    std::vector<const Signature*> signatures;

    std::string file(const json& v) {
        if (v.is_string()) return v.get<std::string>();
        return t.sources[index(v, t.sources.size(), "an evidence file")];
    }
    Evidence evidence(const json& v) {
        array(v, "an evidence", 3);
        return {file(v[0]), integer<std::uint64_t>(v[1], "an evidence line"), text(v[2], "an evidence text")};
    }
    static Timestamp timestamp(const json& v) {
        array(v, "a time", 2);
        const auto flags = integer<unsigned>(v[1], "a time's flags");
        if (flags > 15) refuse("a time's flags are not known to this version");
        return {real(v[0], "a time"), (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0, (flags & 8) != 0};
    }
    RawKey raw_key(const json& v) const {
        array(v, "a process key", 4);
        return {index(v[0], t.groups.size(), "a process key's group"), optional_integer<int>(v[1], "a rank"),
                optional_integer<int>(v[2], "a local rank"), optional_integer<long>(v[3], "a pid")};
    }

    void sources(const json& body);
    void groups(const json& body);
    void signature_table(const json& body);
    void events(const json& body);
    void exits(const json& body);
    void processes(const json& body);
    void rank_maps(const json& body);
    void topology(const json& body);
    void versions(const json& body);
    void scalars(const json& body);
};

void PartialReading::sources(const json& body) {
    for (const json& s : array(need(body, "sources"), "sources")) {
        array(s, "a source", 2);
        t.sources.push_back(text(s[0], "a source's name"));
        t.job_output_lines.push_back(integer<std::uint64_t>(s[1], "a source's job lines"));
    }
}

void PartialReading::groups(const json& body) {
    for (const json& j : array(need(body, "groups"), "groups")) {
        Group& g = t.groups.emplace_back();
        g.name = text(need(j, "name"), "a group's name");
        for (const json& h : list(j, "hosts")) g.hosts.insert(text(h, "a host"));
        for (const json& p : list(j, "local_to_rank"))
            array(p, "a local rank's rank", 2), g.local_to_rank[integer<int>(p[0], "a local rank")] = integer<int>(p[1], "a rank");
        g.several_agents = flag(j, "several_agents");
        g.node_from_path = flag(j, "node_from_path");
        for (const json& p : list(j, "pid_to_local"))
            array(p, "a pid's local rank", 2), g.pid_to_local[integer<long>(p[0], "a pid")] = integer<int>(p[1], "a local rank");
        for (const json& p : list(j, "pid_rank"))
            array(p, "a pid's rank", 2), g.pid_rank[integer<long>(p[0], "a pid")] = optional_integer<int>(p[1], "a rank");
        for (const json& p : list(j, "local_host_pid")) {
            array(p, "a local rank's host and pid", 3);
            g.local_host_pid[integer<int>(p[0], "a local rank")] = {text(p[1], "a host"), integer<long>(p[2], "a pid")};
        }
        for (const json& p : list(j, "sigterm_pids")) g.sigterm_pids.insert(integer<long>(p, "a pid"));
        for (const json& p : list(j, "relayed_pids")) g.relayed_pids.insert(integer<long>(p, "a pid"));
        g.srun_task = opt_field<int>(j, "srun_task");
        g.path_rank = opt_field<int>(j, "path_rank");
        g.path_node = opt_field<int>(j, "path_node");
        g.launch_first_rank = opt_field<int>(j, "launch_first_rank");
    }
}

void PartialReading::signature_table(const json& body) {
    for (const json& s : list(body, "signatures")) {
        array(s, "a signature name", 3);
        const std::string& entry_id = text(s[0], "an entry id");
        const std::string& id = text(s[1], "a signature id");
        const auto place = integer<std::size_t>(s[2], "a signature's place");
        auto it = entries.find(entry_id);
        if (it == entries.end() || place >= it->second->signatures.size() || it->second->signatures[place].id != id)
            refuse("signature " + entry_id + "/" + id + " is not in this denpex's knowledge (written with other knowledge)");
        signatures.push_back(&it->second->signatures[place]);
    }
}

void PartialReading::events(const json& body) {
    for (const json& j : array(need(body, "events"), "events")) {
        Event& e = t.events.emplace_back();
        e.signature = signatures[index(need(j, "sig"), signatures.size(), "an event's signature")];
        e.role = e.signature->role;
        e.source = index(need(j, "src"), t.sources.size(), "an event's source");
        e.order = integer<std::uint64_t>(need(j, "o"), "an event's order");
        e.key = raw_key(need(j, "k"));
        e.evidence = evidence(need(j, "ev"));
        if (const json& captures = maybe(j, "c"); !captures.is_null()) {
            if (!captures.is_object()) refuse("an event's captures are not an object");
            for (const auto& [name, value] : captures.items()) e.captures.emplace(name, text(value, "a capture"));
        }
        if (const json& time = maybe(j, "t"); !time.is_null()) e.time = timestamp(time);
        e.time_exact = flag(j, "tx");
        if (const json& before = maybe(j, "tb"); !before.is_null()) e.time_before = real(before, "a time bound");
        e.time_age = opt_field<std::uint32_t>(j, "ta").value_or(0);
        e.time_from_writer = flag(j, "tw");
        e.from_launcher = flag(j, "fl");
        e.in_summary = flag(j, "is");
        e.host = opt_text(j, "h");
        e.cuda_dev = opt_field<int>(j, "cd");
        e.attempt = opt_field<std::uint16_t>(j, "a");
        e.process_group = opt_text(j, "pg").value_or("");
    }
}

void PartialReading::exits(const json& body) {
    for (const json& j : list(body, "exits")) {
        ExitRecord& x = t.exits.emplace_back();
        x.group = index(need(j, "g"), t.groups.size(), "an exit record's group");
        x.evidence = evidence(need(j, "ev"));
        x.rank = opt_field<int>(j, "r");
        x.local_rank = opt_field<int>(j, "lr");
        x.pid = opt_field<long>(j, "pid");
        x.exitcode = opt_field<int>(j, "x");
        x.host = opt_text(j, "h");
        x.root_cause_section = flag(j, "rc");
        x.attempt = opt_field<std::uint16_t>(j, "a");
    }
}

void PartialReading::processes(const json& body) {
    for (const json& j : list(body, "processes")) {
        ProcessSummary p;
        p.lines = integer<std::uint64_t>(need(j, "n"), "a process's lines");
        p.launcher_lines = opt_field<std::uint64_t>(j, "ln").value_or(0);
        p.job_lines = opt_field<std::uint64_t>(j, "jn").value_or(0);
        p.last_line = evidence(need(j, "last"));
        if (const json& time = maybe(j, "t"); !time.is_null()) p.last_time = timestamp(time);
        p.host = opt_text(j, "h");
        p.cuda_dev = opt_field<int>(j, "cd");
        if (!t.raw_processes.emplace(raw_key(need(j, "k")), std::move(p)).second) refuse("a process is listed twice");
    }
}

void PartialReading::rank_maps(const json& body) {
    const json& ranks = need(body, "ranks");
    for (const json& c : list(ranks, "comm")) {
        array(c, "a communicator rank", 4);
        t.host_pid_to_rank[{text(c[0], "a host"), integer<long>(c[1], "a pid")}] = {integer<int>(c[2], "a rank"),
                                                                                    integer<int>(c[3], "a size")};
    }
    for (const json& b : list(ranks, "bus")) {
        array(b, "a bus id's rank", 3);
        t.bus_to_rank[{text(b[0], "a host"), text(b[1], "a bus id")}] = integer<int>(b[2], "a rank");
    }
    for (const json& r : list(ranks, "named")) t.ranks_named.insert(integer<int>(r, "a rank"));
}

void PartialReading::topology(const json& body) {
    const json& j = need(body, "topology");
    if (const json& hosts = maybe(j, "host_ranks"); !hosts.is_null()) {
        if (!hosts.is_object()) refuse("\"host_ranks\" is not an object");
        for (const auto& [host, ranks] : hosts.items()) {
            auto& set = t.topology.host_ranks[host];
            for (const json& r : array(ranks, "a host's ranks")) set.insert(integer<int>(r, "a rank"));
        }
    }
    for (const json& m : list(j, "masters")) t.topology.masters.insert(text(m, "a master address"));
    for (const json& p : list(j, "task_hosts"))
        array(p, "a task's host", 2), t.topology.task_hosts[integer<int>(p[0], "a task")] = text(p[1], "a host");
    t.topology.world_size = opt_field<int>(j, "world_size");
    if (const json& l = maybe(j, "loopback_rendezvous"); !l.is_null())
        t.topology.loopback_rendezvous = text(l, "the loopback rendezvous line");
}

void PartialReading::versions(const json& body) {
    const json& j = need(body, "torch");
    auto version = [](const json& v) {
        array(v, "a version", 2);
        return Version{integer<int>(v[0], "a major version"), integer<int>(v[1], "a minor version")};
    };
    t.torch_known = flag(j, "known");
    if (const json& lo = maybe(j, "lo"); !lo.is_null()) t.torch.lo = version(lo);
    if (const json& hi = maybe(j, "hi"); !hi.is_null()) t.torch.hi = version(hi);
    for (const json& v : list(j, "stated")) t.torch_stated.insert(version(v));
}

void PartialReading::scalars(const json& body) {
    t.world_size = opt_field<int>(body, "world_size");
    t.nodes_stated = opt_field<int>(body, "nodes_stated");
    t.min_nodes = opt_field<int>(body, "min_nodes");
    t.max_nodes = opt_field<int>(body, "max_nodes");
    t.torchrun = flag(body, "torchrun");
    t.rendezvous_on_loopback = flag(body, "rendezvous_on_loopback");
    for (const json& s : list(body, "gpu_snapshots")) {
        array(s, "a GPU snapshot", 3);
        GpuSnapshot snapshot;
        snapshot.source = index(s[0], t.sources.size(), "a GPU snapshot's source");
        snapshot.line = integer<std::uint64_t>(s[1], "a line number");
        for (const json& g : array(s[2], "a snapshot's GPUs")) {
            array(g, "a GPU reading", 3);
            if (snapshot.gpus.size() >= GpuTableReader::kMaxGpus) refuse("a GPU snapshot lists more GPUs than a host has");
            snapshot.gpus.push_back({integer<int>(g[0], "a GPU index"), text(g[1], "a bus id"),
                                     integer<int>(g[2], "a utilisation")});
            if (snapshot.gpus.back().utilization > 100) refuse("a GPU utilisation above 100%");
        }
        t.gpu_snapshots.push_back(std::move(snapshot));
    }
    for (const json& name : list(body, "stacks")) {
        const auto stack = parse_stack(text(name, "a stack"));
        if (!stack) refuse("stack '" + name.get<std::string>() + "' is not known to this denpex");
        t.stacks.insert(*stack);
    }
    t.deduplicated = flag(body, "deduplicated");
    const json& counts = array(need(body, "counts"), "counts", 3);
    t.bytes = integer<std::uint64_t>(counts[0], "the bytes read");
    t.lines = integer<std::uint64_t>(counts[1], "the lines read");
    t.truncated_lines = integer<std::uint64_t>(counts[2], "the lines cut");
    for (const json& w : list(body, "warnings")) t.warnings.push_back(text(w, "a warning"));
}

// The header: what this is, which version, which knowledge read it. Refuses before the body is looked at.
void check_header(const json& j, const std::string& digest, PartialOrigin& origin) {
    if (!j.is_object() || maybe(j, "format") != "denpex-partial") refuse("not a denpex partial model");
    const auto version = optional_integer<long long>(maybe(j, "version"), "the format version");
    if (!version) refuse("no format version");
    if (*version != kPartialVersion)
        refuse("format version " + std::to_string(*version) + ", this denpex reads version " +
               std::to_string(kPartialVersion) + ": scan the logs again with this denpex");
    origin.host = opt_text(j, "host").value_or("");
    origin.written_by = opt_text(j, "written_by").value_or("");
    const std::string& theirs = text(need(j, "knowledge"), "the knowledge digest");
    if (theirs != digest)
        refuse("written with other knowledge (" + theirs + ", this denpex has " + digest +
               "): scan again with the same denpex and the same --knowledge directories");
}

}  // namespace

DecodedPartial PartialCodec::decode(std::string_view text) const {
    DecodedPartial out;
    try {
        const json j = json::parse(text.begin(), text.end());
        check_header(j, digest_, out.origin);
        PartialReading r{entries_, {}, {}};
        r.sources(j);
        r.groups(j);
        r.signature_table(j);
        r.events(j);
        r.exits(j);
        r.processes(j);
        r.rank_maps(j);
        r.topology(j);
        r.versions(j);
        r.scalars(j);
        out.timeline = std::move(r.t);
    } catch (const Refused& e) {
        out.error = e.what();
    } catch (const json::parse_error&) {
        out.error = "not a complete partial model (broken or cut-off JSON)";
    } catch (const std::exception& e) {
        out.error = std::string("not a usable partial model: ") + e.what();
    }
    return out;
}

}  // namespace denpex
