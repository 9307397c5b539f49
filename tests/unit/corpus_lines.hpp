// Every line of the project's corpus logs (tests/corpus and tests/shared-corpus), for the tests that check that two
// paths of the engine agree on real lines (the literal prefilter, the prefix scanners).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

inline std::vector<std::string> corpus_lines() {
    std::vector<std::string> lines;
    for (const char* root : {"/tests/corpus", "/tests/shared-corpus"}) {
        for (const auto& f : std::filesystem::recursive_directory_iterator(std::string(DENPEX_SOURCE_DIR) + root)) {
            if (!f.is_regular_file()) continue;
            std::ifstream in(f.path(), std::ios::binary);
            std::string line;
            while (std::getline(in, line)) lines.push_back(line);
        }
    }
    return lines;
}
