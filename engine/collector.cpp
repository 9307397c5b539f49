#include "engine/collector.hpp"

#include <re2/re2.h>

#include <algorithm>

#include "engine/elastic_summary.hpp"
#include "engine/evidence_text.hpp"
#include "engine/hard_wrap.hpp"
#include "engine/line_reader.hpp"
#include "engine/normalize.hpp"
#include "engine/path_hints.hpp"
#include "engine/re2_captures.hpp"
#include "engine/stack_banner.hpp"
#include "engine/timeline_conclude.hpp"
#include "engine/version_statement.hpp"

namespace denpex {
namespace {

// Events kept per (process, signature): the first few show where it started, the last one where it ended.
constexpr std::size_t kFirstEventsKept = 3;
constexpr std::uint64_t kProgressEvery = 8u << 20;
// How many lines a survived error's report (its traceback) may run before its exception line.
constexpr int kSurvivedReportLines = 200;
// How many lines below a failure report its subject's field lines may stand.
// Open MPI's help messages put their fields under a paragraph of prose (13 lines for 'peer hung up').
constexpr int kSubjectFieldLines = 16;
constexpr std::uint16_t kMaxAttempts = 1000;

// Lists an event slot waiting for the next stamp; a slot listed many times (one replaced event) is listed once,
// so the list stays bounded by the events kept over a long stream without stamps.
void note_awaiting_stamp(std::vector<std::size_t>& awaiting, std::size_t slot) {
    if (!awaiting.empty() && awaiting.back() == slot) return;
    awaiting.push_back(slot);
    if (awaiting.size() > 1024 && awaiting.size() % 1024 == 0) {
        std::sort(awaiting.begin(), awaiting.end());
        awaiting.erase(std::unique(awaiting.begin(), awaiting.end()), awaiting.end());
    }
}

// An indented field line naming the subject of the event above it: Ray's `pid: 5512` / `ip: 10.1.0.5`, Open MPI's
// `Local host: h` / `Local PID: 7720` / `Peer host: h2` under its help messages. Adds the subject's pid, host or peer
// to `ev` unless it has one. Returns whether the line was such a field.
bool read_subject_field(std::string_view text, Event& ev) {
    if (text.empty() || (text.front() != '\t' && text.front() != ' ')) return false;
    static const RE2 re(R"(^\s+(pid|ip|node_ip|Local host|Local PID|Peer host):\s+(\S+)\s*$)");
    std::string key, value;
    if (!RE2::FullMatch(re2::StringPiece(text.data(), text.size()), re, &key, &value)) return false;
    if (key == "pid" || key == "Local PID") {
        ev.captures.try_emplace("pid", value);
    } else if (key == "Local host") {
        if (!ev.host) ev.host = value;
    } else {
        ev.captures.try_emplace("peer", value);
        // Ray names its subject's own node; Open MPI's peer is the other end.
        if (key != "Peer host" && !ev.host) ev.host = value;
    }
    return true;
}

std::uint32_t group_for(Timeline& t, std::map<std::string, std::uint32_t>& index, const std::string& key,
                        const std::string& name) {
    auto it = index.find(key);
    if (it != index.end()) return it->second;
    auto id = static_cast<std::uint32_t>(t.groups.size());
    t.groups.push_back(Group{});
    t.groups.back().name = name;
    index.emplace(key, id);
    return id;
}

// Does this line, by its own shape, come from a running training job or its launcher rather than from prose
// that quotes an error? Prefixes a process or launcher adds (a rank, a local rank, a task, a pid, a time, NCCL's
// host:pid:tid), the launchers' and runtimes' own lines, and a Python traceback's frames. A host alone (pdsh's
// `host: `) does not count: "License: GPL" has that shape.
bool job_output_line(const Attribution& a, std::string_view line, std::string_view body) {
    if (a.rank || a.local_rank || a.pg_rank || a.srun_task || a.pid || a.time || a.cuda_dev || a.comm_rank || a.bus_id)
        return true;
    auto starts = [&](std::string_view prefix) { return body.rfind(prefix, 0) == 0; };
    auto has = [&](std::string_view needle) { return body.find(needle) != std::string_view::npos; };
    if (starts("  File \"") && has("\", line ")) return true;   // a traceback frame
    for (std::string_view launcher : {"srun: ", "slurmstepd: ", "NVRM: ", "[launch.py:", "torchrun ", "mpirun ",
                                      "Primary job  terminated", "mpirun noticed that process"})
        if (starts(launcher)) return true;
    if (has(" NCCL INFO ") || has(" NCCL WARN ") || has("torch.distributed.elastic") ||
        starts("terminate called after throwing an instance of "))
        return true;
    const re2::StringPiece head(body.data(), std::min<std::size_t>(body.size(), 160));
    // Python logging's default format (`WARNING:torch.distributed.run:`, `INFO:root:`); c10's glog header
    // without a time (`[E ProcessGroupNCCL.cpp:455] `); a Python exception's report line at the start of a line,
    // as a dying process prints it (prose names the exception inside a sentence).
    // Also, anywhere in the head: c10's glog header with its time (`[W317 20:18:18.172384015 ProcessGroupNCCL.cpp:
    // 1538]`), which a log collector's own time prefix can push off the line's start.
    static const RE2 runtime(R"(^(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[A-Za-z_][A-Za-z0-9_.]*:|)"
                             R"(\[[EWIF] [A-Za-z0-9_]+\.(?:cpp|cc|cu|h|hpp):[0-9]+\] |)"
                             R"((?:[a-z_][a-z0-9_]*\.)*[A-Z][A-Za-z0-9_]*(?:Error|Exception): )|)"
                             R"(\[[EWIF][0-9]{3,4} [0-9:.]+ +(?:[0-9]+ )?[A-Za-z0-9_]+\.(?:cpp|cc|cu|h|hpp):[0-9]+\])");
    const re2::StringPiece line_head(line.data(), std::min<std::size_t>(line.size(), 160));
    return RE2::PartialMatch(head, runtime) || (line.size() != body.size() && RE2::PartialMatch(line_head, runtime));
}

}  // namespace

Collector::Collector(const Matcher& matcher) : matcher_(matcher) {}

void Collector::add_fd(int fd, const std::string& name, const std::string& path) {
    LineReader reader(fd);
    read(reader, name, path);
    if (!reader.error().empty()) t_.warnings.push_back(name + ": read error: " + reader.error());
}

void Collector::add_text(std::string_view text, const std::string& name, const std::string& path) {
    LineReader reader(text);
    read(reader, name, path);
}

// The state one input keeps from one line to the next: read() keeps it for a whole file, a live input (denpex
// watch) between calls. Bounded: per-writer maps are bounded by the writers, slot lists by the events kept.
struct Collector::Source {
    std::uint32_t source = 0;
    std::string name;
    PathHints hints;
    // Files of one node (a torchrun --log_dir tree) share a group; any other file is its own group.
    std::string base_key, base_name;
    std::uint32_t base_group = 0;
    ElasticSummaryReader elastic;
    // A failure report that names its subject in indented field lines below it (Ray's RayActorError:
    // "\tpid: 5512", "\tip: 10.1.0.5"): the event stays open for a few lines to take those fields.
    std::size_t open_event = 0;
    int open_lines_left = 0;
    std::optional<Timestamp> last_time;
    // Events of this file whose time was carried from an earlier line, waiting for the next stamp to bound it.
    std::vector<std::size_t> awaiting_stamp;
    std::uint64_t last_time_line = 0;
    // Each writer's latest stamp in this file: the record a process logs right before its traceback dates it.
    std::map<RawKey, std::pair<Timestamp, std::uint64_t>> writer_time;
    std::string scratch;   // a line that needs normalising is written here (reused: no allocation per line)
    // Launch attempts: the path's attempt_N, else counted from the restarts this file announces. A file that says
    // neither leaves its lines' attempt unknown (they are read with every attempt).
    std::uint16_t attempt = 0;
    bool knows_attempts = false;
    std::vector<std::size_t> my_slots;   // the event slots this input filled, each once
    std::size_t first_exit = 0;
    // Lines cut at the reader's limit: the text past it is not read, which the input's warning says.
    std::uint64_t cut_lines = 0;
    std::uint64_t line_no = 0;   // a live input's physical line count
    std::uint64_t bytes = 0;     // a live input's bytes
    GpuTableReader gpus;         // nvidia-smi's device table, when the input holds one
};

Collector::~Collector() = default;

Collector::Source Collector::open_source(const std::string& name, const std::string& path) {
    Source s;
    s.source = static_cast<std::uint32_t>(t_.sources.size());
    s.name = name;
    t_.sources.push_back(name);
    t_.job_output_lines.push_back(0);
    s.hints = path.empty() ? PathHints{} : path_hints(path);
    s.base_key = s.hints.node_key.empty() ? "file:" + std::to_string(s.source) : "node:" + s.hints.node_key;
    s.base_name = s.hints.node_key.empty() ? name : s.hints.node_key;
    s.base_group = group_for(t_, group_index_, s.base_key, s.base_name);
    if (s.hints.rank) t_.groups[s.base_group].path_rank = s.hints.rank;
    if (s.hints.node) t_.groups[s.base_group].path_node = s.hints.node;
    if (!s.hints.node_key.empty()) t_.groups[s.base_group].node_from_path = true;
    s.attempt = static_cast<std::uint16_t>(std::clamp(s.hints.attempt.value_or(0), 0, int{kMaxAttempts}));
    s.knows_attempts = s.hints.attempt.has_value();
    s.first_exit = t_.exits.size();
    return s;
}

void Collector::read(LineReader& reader, const std::string& name, const std::string& path) {
    Source s = open_source(name, path);
    std::string_view raw;
    bool truncated = false;
    std::uint64_t line_no = 0, next_progress = kProgressEvery;
    HardWrapJoiner lines(reader);
    while (lines.next(raw, truncated, line_no)) {
        if ((line_no & 0xFFF) == 0 && cancelled()) return;
        if (progress_ && reader.bytes_read() >= next_progress) {
            progress_(t_.bytes + reader.bytes_read());
            next_progress += kProgressEvery;
        }
        feed(s, raw, truncated, line_no);
    }
    close_source(s, t_);
    t_.bytes += reader.bytes_read();
}

// The end of an input: a file that never said which attempt its lines are leaves their attempt unknown.
void Collector::close_source(const Source& s, Timeline& t) const {
    if (auto snapshot = s.gpus.latest()) t.gpu_snapshots.push_back(std::move(*snapshot));
    if (!s.knows_attempts) {
        for (std::size_t slot : s.my_slots) t.events[slot].attempt.reset();
        for (std::size_t i = s.first_exit; i < t.exits.size(); ++i) t.exits[i].attempt.reset();
    }
    if (s.cut_lines > 0)
        t.warnings.push_back(s.name + ": " + std::to_string(s.cut_lines) + " line(s) longer than " +
                             std::to_string(LineReader::kDefaultMaxLine >> 20) +
                             " MiB were cut; the text past that in each was not read");
}

std::size_t Collector::open_live(const std::string& name, const std::string& path) {
    const std::size_t id = next_live_++;
    live_.emplace(id, std::make_unique<Source>(open_source(name, path)));
    return id;
}

void Collector::add_line(std::size_t live, std::string_view line, bool truncated) {
    auto it = live_.find(live);
    if (it == live_.end()) return;
    Source& s = *it->second;
    s.bytes += line.size() + 1;
    t_.bytes += line.size() + 1;
    feed(s, line, truncated, ++s.line_no);
}

void Collector::close_live(std::size_t live) {
    auto it = live_.find(live);
    if (it == live_.end()) return;
    close_source(*it->second, t_);
    live_.erase(it);
}

// One line as the stages see it. The attribution stage fills the first block, the writer stage the second; the
// later stages only read it.
struct Collector::Line {
    std::string_view text;   // normalised (engine/normalize.hpp); valid until the input's next line
    std::string_view body;   // the text after the prefixes attribution took off
    std::uint64_t line_no = 0;
    Attribution a;
    ElasticLine el;          // what the line says in torchrun's agent output, when it is part of it
    SrunSubject srun;        // the task(s) srun's own error line is about
    bool in_summary = false; // inside a summary record of the agent: the record's worker is the subject
    bool job_shaped = false; // the line has the shape of a job's or launcher's output, not of prose

    std::uint32_t group = 0;
    RawKey writer;           // the process that wrote the line
    RawKey key;              // the process the line is about: the writer, or the worker whose report it relays
    bool forwarded = false;
};

// One line of an input, in the order the input holds them: the stages in the order each needs the one before.
void Collector::feed(Source& s, std::string_view raw, bool truncated, std::uint64_t line_no) {
    ++t_.lines;
    if (truncated) {
        ++t_.truncated_lines;
        ++s.cut_lines;
    }
    const std::string_view text = normalized(raw, s.scratch);
    if (text.empty()) return;
    s.gpus.feed(text, s.source, line_no);
    // Ray's deduplication note was cut off: this line stands for other workers' identical lines too.
    if (text.size() < raw.size() && raw.ends_with(" across cluster]")) t_.deduplicated = true;

    if (s.open_lines_left > 0) {
        --s.open_lines_left;
        if (read_subject_field(text, t_.events[s.open_event])) return;
    }

    Line line = attribute_line(s, text, line_no);
    place_writer(s, line);
    note_clock(s, line);
    note_identity(line);
    note_launcher_record(s, line);
    note_process_summary(s, line);
    record_events(s, line);
}

// Attribution stage: the line's prefixes, what torchrun's agent and srun say in it, the versions and stacks it
// states, and whether it has the shape of a job's output. Inside an agent's summary record, or in the agent's own
// "failed ... local_rank: L" line, the subject is the worker the record is about, not the writer.
Collector::Line Collector::attribute_line(Source& s, std::string_view text, std::uint64_t line_no) {
    Line l;
    l.text = text;
    l.line_no = line_no;
    l.a = attribute(text);
    l.body = text.substr(std::min(l.a.body_offset, text.size()));
    l.el = s.elastic.feed(l.body);
    l.srun = read_topology_line(l.body, t_.topology);
    const auto stated = stated_torch_version(l.body);
    if (stated) t_.torch_stated.insert(*stated);
    // The whole line: a launcher's own record header ("] [launch.py:145:main]") is an attribution prefix, not body.
    if (const auto stack = stated_stack(text)) t_.stacks.insert(*stack);
    l.job_shaped = stated || l.el.kind != ElasticLine::Kind::none || !l.srun.host.empty() ||
                   job_output_line(l.a, text, l.body);
    if (l.job_shaped) ++t_.job_output_lines[s.source];
    l.in_summary = s.elastic.current_rank() || s.elastic.current_local_rank();
    if (l.in_summary) {
        l.a.rank = s.elastic.current_rank();
        l.a.local_rank = s.elastic.current_local_rank();
    }
    if (l.el.kind == ElasticLine::Kind::agent_failed) {
        // "failed (exitcode: C) local_rank: L (pid: P)" is the agent speaking about worker L.
        l.a.local_rank = l.el.local_rank;
        l.a.rank.reset();
    }
    return l;
}

// Writer stage: the group the line belongs to (its file's node, or the srun task or pdsh host its prefix names) and
// the process: by rank, else local rank (the line's own, else its path's), else pid. Inside a report another
// writer prints for a worker, the line is that worker's.
void Collector::place_writer(Source& s, Line& l) {
    l.group = s.base_group;
    if (l.a.srun_task) {
        const std::string task = std::to_string(*l.a.srun_task);
        l.group = group_for(t_, group_index_, s.base_key + "|task:" + task, "task " + task + " of " + s.base_name);
        t_.groups[l.group].srun_task = l.a.srun_task;
    } else if (l.a.stream_host) {
        // pdsh and its kind multiplex one stream per node: each node's lines are that node's group, as srun's tasks
        // are, so a traceback printed without a rank is read beside the ranks of its own node only.
        l.group = group_for(t_, group_index_, s.base_key + "|host:" + *l.a.stream_host,
                            *l.a.stream_host + " in " + s.base_name);
    }
    Group& g = t_.groups[l.group];
    if (!g.launch_first_rank)
        if (const auto position = read_launch_position(l.body)) g.launch_first_rank = position->first_rank();

    RawKey key;
    key.group = l.group;
    // A path's rank (rank_3.log) applies to lines that say nothing themselves: ProcessTable does that, so that
    // a line's own local rank still wins over it.
    key.rank = l.a.rank;
    key.local_rank = l.a.local_rank ? l.a.local_rank : s.hints.local_rank;
    // A pid only identifies a worker when nothing better does (glog lines of the agent carry its own pid).
    if (!key.rank && !key.local_rank) key.pid = l.a.pid;
    l.writer = l.key = key;
    // Inside a report another writer prints for a worker, the writer's lines are that worker's: those that name
    // nobody (mp.spawn's parent), and those that name only the relaying writer itself (Ray's driver, whose every
    // line PyTorch prefixes `[rank0]:`, re-raising a RayTaskError with the remote worker's traceback).
    if (auto fwd = forwarded_open_.find(l.writer); fwd != forwarded_open_.end()) {
        if (--fwd->second.lines_left <= 0) {
            forwarded_open_.erase(fwd);
        } else if (l.srun.host.empty()) {   // srun's own lines ("task 1: Exited") are srun's, never the worker's
            l.key = fwd->second.subject;
            l.forwarded = true;
        }
    }
}

// File clock stage: a stamped line bounds the events that carried an earlier stamp, and becomes the file's and its
// writer's latest time.
void Collector::note_clock(Source& s, const Line& l) {
    if (!l.a.time) return;
    for (std::size_t slot : s.awaiting_stamp) {
        Event& carried = t_.events[slot];
        if (carried.source == s.source && !carried.time_exact && !carried.time_before && carried.time &&
            carried.time->has_date == l.a.time->has_date && carried.time->uptime == l.a.time->uptime)
            carried.time_before = l.a.time->seconds;
    }
    s.awaiting_stamp.clear();
    s.last_time = l.a.time;
    s.last_time_line = l.line_no;
    s.writer_time[l.writer] = {*l.a.time, l.line_no};
}

// Identity stage: what the line ties together (hosts, pids, ranks, local ranks, GPUs) and the job's size it states.
void Collector::note_identity(const Line& l) {
    const Attribution& a = l.a;
    Group& g = t_.groups[l.group];
    if (a.host) g.hosts.insert(*a.host);
    if (!l.srun.host.empty()) g.hosts.insert(l.srun.host);
    if (a.rank) t_.ranks_named.insert(*a.rank);
    if (a.rank && a.pid && !l.in_summary) g.note_pid_rank(*a.pid, *a.rank);
    if (a.world_size) t_.world_size = std::max(t_.world_size.value_or(0), *a.world_size);
    if (a.nnodes) t_.nodes_stated = std::max(t_.nodes_stated.value_or(0), *a.nnodes);
    if (a.min_nodes) t_.min_nodes = std::max(t_.min_nodes.value_or(0), *a.min_nodes);
    if (a.max_nodes) t_.max_nodes = std::max(t_.max_nodes.value_or(0), *a.max_nodes);
    if (a.rendezvous_on_loopback) t_.rendezvous_on_loopback = true;
    // A rank read on a line of a local rank's own file (attempt_0/1/stdout.log) maps that local rank too.
    if (a.rank && l.key.local_rank) g.note_local_rank(*l.key.local_rank, *a.rank);
    if (a.host && a.pid) {
        // A prefix's rank is the global one; an Init COMPLETE line's is its communicator's (the largest wins).
        if (a.rank) t_.note_communicator_rank({*a.host, *a.pid}, *a.rank, Timeline::kStatedRank);
        else if (a.comm_rank) t_.note_communicator_rank({*a.host, *a.pid}, *a.comm_rank, a.world_size.value_or(0));
        // The pid behind a local rank's own file (attempt_0/1/stdout.log) ties that local rank to its rank.
        if (l.key.local_rank) g.local_host_pid.try_emplace(*l.key.local_rank, *a.host, *a.pid);
    }
    if (const auto bus_rank = a.rank ? a.rank : a.comm_rank; bus_rank && a.host && a.bus_id)
        t_.bus_to_rank.try_emplace({*a.host, *a.bus_id}, *bus_rank);   // world comm first
}

// Launcher stage: torchrun's agent lines (the SIGTERMs it sends, a worker's failure) and its summary's records,
// each a worker's exit.
void Collector::note_launcher_record(Source& s, const Line& l) {
    const ElasticLine& el = l.el;
    Group& g = t_.groups[l.group];
    if (s.elastic.saw_elastic()) t_.torchrun = true;
    if (el.kind == ElasticLine::Kind::sigterm && el.pid) g.sigterm_pids.insert(*el.pid);
    if (el.kind == ElasticLine::Kind::agent_failed && el.pid && el.local_rank) g.pid_to_local[*el.pid] = *el.local_rank;
    if (el.kind != ElasticLine::Kind::summary_exit && el.kind != ElasticLine::Kind::agent_failed) return;
    ExitRecord r;
    r.group = l.group;
    r.rank = el.rank;
    r.local_rank = el.local_rank;
    r.pid = el.pid;
    r.exitcode = el.exitcode;
    r.host = el.host;
    r.root_cause_section = el.root_cause_section;
    r.evidence = {s.name, l.line_no, evidence_text(l.text)};
    r.attempt = s.attempt;
    if (el.rank && el.local_rank) g.note_local_rank(*el.local_rank, *el.rank);
    // The summary's host is the agent's own (its node); "localhost" names nothing.
    if (el.host && *el.host != "localhost") g.hosts.insert(*el.host);
    if (el.pid && el.local_rank) g.pid_to_local[*el.pid] = *el.local_rank;
    t_.exits.push_back(std::move(r));
}

// Process summary stage: per process, its line counts, its last own line, its latest time, host and GPU.
void Collector::note_process_summary(const Source& s, const Line& l) {
    ProcessSummary& ps = t_.raw_processes[l.key];
    ++ps.lines;
    if (l.job_shaped) ++ps.job_lines;
    if (l.in_summary || l.el.kind != ElasticLine::Kind::none) ++ps.launcher_lines;
    else {
        if (ps.last_line.file != s.name) ps.last_line.file = s.name;
        ps.last_line.line = l.line_no;
        assign_evidence_text(ps.last_line.text, l.text);
    }
    if (s.last_time) ps.last_time = s.last_time;
    if (l.a.host) ps.host = l.a.host;
    if (l.a.cuda_dev) ps.cuda_dev = l.a.cuda_dev;
}

// Event stage: the line's signature hits, read inside the reports they may belong to, become events.
void Collector::record_events(Source& s, const Line& l) {
    auto survived = survived_open_.find(l.key);
    if (survived != survived_open_.end() && --survived->second <= 0) {
        survived_open_.erase(survived);
        survived = survived_open_.end();
    }
    bool survived_ends = false, forwarded_ends = false;
    const Entry* previous_entry = nullptr;
    for (Hit& hit : matcher_.match(l.text)) {
        const Signature* sig = hit.signature;
        // A traceback's header, a report of an error the process survived, a chained exception, mp.spawn's
        // "Process N terminated": a Python runtime's own output.
        if (sig->mark == Mark::failure_start || sig->mark == Mark::survived_report ||
            sig->mark == Mark::chain_link || sig->mark == Mark::names_next_report)
            ++t_.job_output_lines[s.source];
        // Two signatures of one entry on one line are one event (hits come grouped by entry).
        if (sig->entry == previous_entry) continue;
        previous_entry = sig->entry;
        if (enters_survived_report(*sig, l, survived)) continue;
        if (sig->mark == Mark::names_next_report) open_forwarded_report(l, hit);
        // The report's exception line, whatever its role, ends it.
        if (l.forwarded && sig->role != Role::context && sig->mark != Mark::failure_start) forwarded_ends = true;
        if (survived != survived_open_.end() && (sig->role != Role::context || sig->mark == Mark::failure_start)) {
            // Inside "Exception ignored in:" / "Exception in thread": the process went on, whatever the
            // exception was. Its line ends the report; the traceback header before it is part of it.
            if (sig->mark != Mark::failure_start) survived_ends = true;
            continue;
        }
        if (sig->torch) {
            t_.torch = t_.torch_known ? t_.torch.intersect(*sig->torch) : *sig->torch;
            t_.torch_known = true;
        }
        if (sig->launcher && *sig->launcher == "torchrun") t_.torchrun = true;
        store_event(s, l, make_event(s, l, *sig, std::move(hit.captures)));
    }
    if (survived_ends) {
        survived_open_.erase(l.key);
        survived_closed_at_[l.key] = l.line_no;
    }
    if (forwarded_ends) forwarded_open_.erase(l.writer);
}

// Whether this hit opens a report of an error its process survived (and is part of it, not an event): the report's
// own header, a chained traceback right after such a report ended, or a traceback right below a WARNING/INFO record
// (the exception that record logged and handled). `survived` follows the report opened here.
bool Collector::enters_survived_report(const Signature& sig, const Line& l, SurvivedReports::iterator& survived) {
    if (sig.mark == Mark::survived_report) {
        survived_open_[l.key] = kSurvivedReportLines;
        return true;
    }
    if (sig.mark == Mark::handled_record) handled_record_at_[l.key] = l.line_no;
    if (survived != survived_open_.end()) return false;
    auto opens_within = [&](const std::map<RawKey, std::uint64_t>& at, std::uint64_t lines) {
        auto it = at.find(l.key);
        return it != at.end() && l.line_no - it->second <= lines;
    };
    const bool opens = (sig.mark == Mark::chain_link && opens_within(survived_closed_at_, 3)) ||
                       (sig.mark == Mark::failure_start && opens_within(handled_record_at_, 2));
    if (!opens) return false;
    survived_open_[l.key] = kSurvivedReportLines;
    survived = survived_open_.find(l.key);
    return true;
}

// A writer's line saying that the report below is another worker's (mp.spawn's "Process N terminated", Ray's
// RayTaskError (pid=P, ...)): the writer's next lines are that worker's until the report's exception line.
void Collector::open_forwarded_report(const Line& l, const Hit& hit) {
    RawKey subject{l.writer.group, std::nullopt, std::nullopt, std::nullopt};
    if (auto r = hit.captures.find("rank"); r != hit.captures.end()) subject.rank = to_number<int>(r->second);
    else if (auto lr = hit.captures.find("local_rank"); lr != hit.captures.end())
        subject.local_rank = to_number<int>(lr->second);
    else if (auto p = hit.captures.find("pid"); p != hit.captures.end())   // Ray's RayTaskError (pid=P, ...)
        subject.pid = to_number<long>(p->second);
    if (subject.rank || subject.local_rank || subject.pid) forwarded_open_[l.writer] = {subject, kSurvivedReportLines};
    if (subject.pid && !subject.rank && !subject.local_rank) t_.groups[l.writer.group].relayed_pids.insert(*subject.pid);
}

// The event a hit makes: its evidence, its time (its own stamp, a summary record's, else its writer's or the file's
// latest, with how many lines old that is), its subject and where it was said.
Event Collector::make_event(const Source& s, const Line& l, const Signature& sig,
                             std::map<std::string, std::string> captures) {
    Event ev;
    ev.signature = &sig;
    ev.role = sig.role;
    ev.evidence = {s.name, l.line_no, evidence_text(l.text)};
    ev.captures = std::move(captures);
    auto lines_since = [&](std::uint64_t stamped) {
        return static_cast<std::uint32_t>(std::min<std::uint64_t>(l.line_no - stamped, UINT32_MAX));
    };
    ev.time_exact = l.a.time.has_value();
    if (l.a.time) {
        ev.time = l.a.time;
    } else if (auto when = l.in_summary ? s.elastic.current_time() : std::nullopt) {
        // A summary record's line: the record's own time (when the agent saw the worker fail), not the time of
        // the agent's output around it.
        ev.time = when;
        ev.time_exact = true;
    } else if (auto w = s.writer_time.find(l.writer); w != s.writer_time.end()) {
        ev.time = w->second.first;
        ev.time_age = lines_since(w->second.second);
        ev.time_from_writer = true;
    } else {
        ev.time = s.last_time;
        ev.time_age = lines_since(s.last_time_line);
    }
    // The agent's summary and lines, and srun's own "srun: error: host: task N: ..." report a worker's exit.
    ev.from_launcher = l.in_summary || l.el.kind != ElasticLine::Kind::none || !l.srun.host.empty();
    ev.in_summary = l.in_summary;
    ev.source = s.source;
    ev.order = order_++;
    ev.key = l.key;
    ev.host = l.a.host ? l.a.host : l.srun.host.empty() ? std::nullopt : std::optional<std::string>(l.srun.host);
    // srun's line about one task ("srun: error: node-b07: task 11: Out Of Memory") names its subject.
    if (l.srun.task) ev.captures.try_emplace("task", std::to_string(*l.srun.task));
    // srun's line about several tasks ("tasks 4-7: Exited with exit code 1") names them all.
    if (!l.srun.tasks.empty()) {
        std::string listed;
        for (int task : l.srun.tasks) listed += (listed.empty() ? "" : ",") + std::to_string(task);
        ev.captures.try_emplace("tasks", listed);
    }
    ev.cuda_dev = l.a.cuda_dev;
    ev.attempt = s.attempt;
    ev.process_group = l.a.process_group;
    return ev;
}

// The bounded store: per (writer, signature, subject) the first few events and the latest one are kept, so memory
// does not grow with the input. An event that names no subject of its own stays open for the field lines below it.
void Collector::store_event(Source& s, const Line& l, Event ev) {
    const Signature* sig = ev.signature;
    // Per worker and signature only a few events are kept, but lines about different pids (the agent's
    // SIGTERM list, the OOM killer's victims) are different subjects and each keeps its own.
    std::string subject;
    if (auto it = ev.captures.find("pid"); it != ev.captures.end()) subject = it->second;
    // Each rank's start-up announcement is kept apart: how many processes announced one rank is the fact.
    else if (auto r = ev.captures.find("announced_rank"); r != ev.captures.end()) subject = "rank " + r->second;
    // A line of a writer with no rank that names the rank it is about (mpirun's "process rank 6", the collective
    // check's "Rank 3 is running") is that rank's: several ranks' reports in one unranked stream each keep theirs.
    else if (auto n = ev.captures.find("rank"); n != ev.captures.end() && !l.key.rank) subject = "rank " + n->second;
    const bool names_subject = !subject.empty() || ev.captures.count("rank");
    auto& [count, last_slot] = kept_[{l.key, sig, subject}];
    std::size_t slot;
    if (count < kFirstEventsKept) {
        slot = t_.events.size();
        t_.events.push_back(std::move(ev));
    } else if (count == kFirstEventsKept) {
        slot = last_slot = t_.events.size();
        t_.events.push_back(std::move(ev));
    } else {
        slot = last_slot;
        t_.events[last_slot] = std::move(ev);
    }
    if (count <= kFirstEventsKept) s.my_slots.push_back(slot);   // a replaced slot is listed already
    ++count;
    if (sig->mark == Mark::ends_attempt && s.attempt < kMaxAttempts) {
        ++s.attempt;
        s.knows_attempts = true;
    }
    if (!t_.events[slot].time_exact && t_.events[slot].time) note_awaiting_stamp(s.awaiting_stamp, slot);
    if (!names_subject && sig->role != Role::context) {
        s.open_event = slot;
        s.open_lines_left = kSubjectFieldLines;
    }
}

Timeline Collector::finish_read() {
    while (!live_.empty()) close_live(live_.begin()->first);
    return std::move(t_);
}

Timeline Collector::finish() {
    Timeline t = finish_read();
    conclude_timeline(t);
    return t;
}

Timeline Collector::snapshot() const {
    Timeline t = t_;
    for (const auto& [id, source] : live_) close_source(*source, t);
    conclude_timeline(t);
    return t;
}

}  // namespace denpex
