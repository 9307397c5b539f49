#include "follow/line_splitter.hpp"

namespace denpex {

void LineSplitter::take_partial(std::string_view piece, const Sink& sink) {
    if (skipping_) return;
    const std::size_t room = max_line_ - partial_.size();
    if (piece.size() <= room) {
        partial_.append(piece);
        return;
    }
    partial_.append(piece.substr(0, room));
    sink(partial_, true);
    partial_.clear();
    skipping_ = true;
}

void LineSplitter::append(std::string_view bytes, const Sink& sink) {
    while (!bytes.empty()) {
        const std::size_t nl = bytes.find('\n');
        if (nl == std::string_view::npos) {
            take_partial(bytes, sink);
            return;
        }
        const std::string_view piece = bytes.substr(0, nl);
        bytes.remove_prefix(nl + 1);
        if (skipping_) {
            skipping_ = false;
            continue;
        }
        if (partial_.empty() && piece.size() <= max_line_) {
            sink(piece, false);   // the common case: no copy
            continue;
        }
        take_partial(piece, sink);
        if (skipping_) {
            skipping_ = false;   // the cut line ended here
            continue;
        }
        sink(partial_, false);
        partial_.clear();
    }
}

void LineSplitter::finish(const Sink& sink) {
    if (!skipping_ && !partial_.empty()) sink(partial_, false);
    reset();
}

void LineSplitter::reset() {
    partial_.clear();
    partial_.shrink_to_fit();
    skipping_ = false;
}

}  // namespace denpex
