// The knowledge files compiled into the binary (generated from knowledge/*.json by knowledge/embed.cmake).
#pragma once

#include <span>
#include <string_view>

namespace denpex {

struct EmbeddedFile {
    std::string_view name;
    std::string_view content;
};

std::span<const EmbeddedFile> embedded_knowledge();

}  // namespace denpex
