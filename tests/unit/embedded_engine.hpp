// The engine with the built-in knowledge, built once for every unit test that diagnoses logs.
#pragma once

#include <string>
#include <vector>

#include "engine/engine.hpp"

inline const denpex::Engine& engine() {
    static const denpex::Engine e = [] {
        std::vector<std::string> problems;
        return denpex::Engine(denpex::KnowledgeBase::load_embedded(problems));
    }();
    return e;
}
