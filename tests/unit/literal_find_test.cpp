// Literal::in is string_view::find != npos, whatever byte it anchors on: random texts over a small alphabet (so
// needles occur, overlap and are cut at the ends) and the needles the engine searches for.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/literal_find.hpp"

using denpex::Literal;

TEST_CASE("Literal: finds exactly what string_view::find finds") {
    static constexpr std::string_view kNeedles[] = {"Rank ", "a", "ab", "store for rank: ", " COMPLETE", "zz", "",
                                                    "--nproc", "] [launch.py:", "***** Running training *****"};
    const std::string alphabet = "aRbnk zs:-oCOMPLETE]*[";
    std::uint32_t seed = 1;
    auto next = [&] { return (seed = seed * 1103515245u + 12345u) >> 8; };
    std::size_t differences = 0;
    for (int t = 0; t < 20000; ++t) {
        std::string text;
        const std::size_t length = next() % 40;
        for (std::size_t i = 0; i < length; ++i) text += alphabet[next() % alphabet.size()];
        for (std::string_view needle : kNeedles) {
            std::string probe = text;
            if (t % 5 == 0) probe.insert(next() % (probe.size() + 1), needle);
            if (t % 11 == 0 && !needle.empty()) probe += needle.substr(0, needle.size() - 1);   // cut at the end
            const bool expected = std::string_view(probe).find(needle) != std::string_view::npos;
            if (Literal(needle).in(probe) != expected && ++differences <= 5)
                FAIL_CHECK("Literal(\"" << needle << "\").in(\"" << probe << "\") != " << expected);
        }
    }
    CHECK(differences == 0);
}

TEST_CASE("Literal: the anchor is the rarest byte, chosen at compile time") {
    static constexpr Literal kLiteral("store for rank: ");
    CHECK(kLiteral.in("Added key: x to store for rank: 1"));
    CHECK_FALSE(kLiteral.in("store for rank 1"));
    CHECK(Literal("").in(""));
    CHECK_FALSE(Literal("x").in(""));
}
