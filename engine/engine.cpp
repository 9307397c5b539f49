#include "engine/engine.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "engine/collector.hpp"
#include "engine/reasoner.hpp"

namespace denpex {

Engine::Engine(KnowledgeBase kb) : kb_(std::move(kb)), matcher_(std::make_unique<Matcher>(kb_)) {}

Report Engine::diagnose(const DiagnoseInput& input, const DiagnoseOptions& options, bool* cancelled) const {
    Collector collector(*matcher_);
    collector.set_cancel_flag(options.cancel);
    if (options.progress) collector.set_progress(options.progress);
    std::vector<std::string> warnings;
    for (const InputFile& f : input.files) {
        if (collector.cancelled()) break;
        if (f.path == "-") {
            collector.add_fd(STDIN_FILENO, f.display, "");
            continue;
        }
        int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            warnings.push_back(f.display + ": " + std::strerror(errno));
            continue;
        }
#ifdef POSIX_FADV_SEQUENTIAL
        ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        collector.add_fd(fd, f.display, f.path);
        ::close(fd);
    }
    for (const auto& [name, text] : input.texts) {
        if (collector.cancelled()) break;
        collector.add_text(text, name);
    }
    if (cancelled) *cancelled = collector.cancelled();
    Timeline t = collector.finish();
    for (auto& w : warnings) t.warnings.push_back(std::move(w));
    return reason(t, kb_);
}

}  // namespace denpex
